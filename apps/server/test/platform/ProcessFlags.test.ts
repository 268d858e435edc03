/** The bundle's entry points run themselves again with their V8 flags unless told either way (issue 30 item 5, issue 29 item 7). */
import { assert, describe, it } from "@effect/vitest"
import { relaunchArguments } from "../../src/platform/ProcessFlags.ts"

describe("ProcessFlags", () => {
  it("adds the flags before the process's own flags, and keeps the script and its arguments", () => {
    assert.deepStrictEqual(
      relaunchArguments("/bin/node", ["--cpu-prof"], ["/bin/node", "/srv/dist/main.js", "--port", "1"]),
      ["/bin/node", "--liftoff-only", "--heap-growing-percent=100", "--no-allocation-site-pretenuring", "--cpu-prof", "/srv/dist/main.js", "--port", "1"]
    )
  })

  it("adds only what the operator's flags leave open", () => {
    assert.deepStrictEqual(
      relaunchArguments("/bin/node", ["--no-liftoff-only"], ["/bin/node", "main.js"]),
      ["/bin/node", "--heap-growing-percent=100", "--no-allocation-site-pretenuring", "--no-liftoff-only", "main.js"]
    )
    assert.deepStrictEqual(
      relaunchArguments("/bin/node", ["--heap-growing-percent=50"], ["/bin/node", "main.js"]),
      ["/bin/node", "--liftoff-only", "--no-allocation-site-pretenuring", "--heap-growing-percent=50", "main.js"]
    )
    assert.deepStrictEqual(
      relaunchArguments("/bin/node", ["--allocation-site-pretenuring"], ["/bin/node", "main.js"]),
      ["/bin/node", "--liftoff-only", "--heap-growing-percent=100", "--allocation-site-pretenuring", "main.js"]
    )
  })

  it("leaves a process alone whose flags decide every one", () => {
    assert.isUndefined(relaunchArguments("/bin/node", ["--liftoff-only", "--heap-growing-percent=100", "--no-allocation-site-pretenuring"], ["/bin/node", "main.js"]))
    assert.isUndefined(relaunchArguments("/bin/node", ["--heap-growing-percent=30", "--no-liftoff-only", "--allocation_site_pretenuring"], ["/bin/node", "main.js"]))
  })
})
