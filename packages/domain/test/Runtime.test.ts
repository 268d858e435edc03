import { assert, it } from "@effect/vitest"

// The workspace pins Node 24 from the npm registry; tests must run on it, not on the machine's Node.
it("runs on the pinned Node 24", () => {
  assert.match(process.version, /^v24\./)
})
