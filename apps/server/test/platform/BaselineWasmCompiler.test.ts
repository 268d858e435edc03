/** The bundle's entry points run themselves again with `--liftoff-only` unless told either way (issue 30, item 5). */
import { assert, describe, it } from "@effect/vitest"
import { relaunchArguments } from "../../src/platform/BaselineWasmCompiler.ts"

describe("BaselineWasmCompiler", () => {
  it("adds the flag before the process's own flags, and keeps the script and its arguments", () => {
    assert.deepStrictEqual(
      relaunchArguments("/bin/node", ["--cpu-prof"], ["/bin/node", "/srv/dist/main.js", "--port", "1"]),
      ["/bin/node", "--liftoff-only", "--cpu-prof", "/srv/dist/main.js", "--port", "1"]
    )
  })

  it("leaves a process alone that already has the flag or was started with its opposite", () => {
    assert.isUndefined(relaunchArguments("/bin/node", ["--liftoff-only"], ["/bin/node", "main.js"]))
    assert.isUndefined(relaunchArguments("/bin/node", ["--no-liftoff-only"], ["/bin/node", "main.js"]))
  })
})
