import { assert, it } from "@effect/vitest"
it("runs on node 24", () => { assert.match(process.version, /^v24\./) })
