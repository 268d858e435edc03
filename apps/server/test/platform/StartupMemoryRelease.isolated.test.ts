/** What start-up leaves behind is collected once the server is up (issue 30, item 5). */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as StartupMemoryRelease from "../../src/platform/StartupMemoryRelease.ts"

const MB = 1024 * 1024

describe("StartupMemoryRelease", () => {
  it.effect("collects the garbage start-up left", () =>
    Effect.gen(function*() {
      // What start-up used: ~30 MB of small objects, kept until start-up is over (so they outlive
      // young-generation collections), then dead.
      let used: Array<ReadonlyArray<{ readonly n: number }>> | undefined = Array.from(
        { length: 100 },
        () => Array.from({ length: 10_000 }, (_, n) => ({ n }))
      )
      const before = process.memoryUsage().heapUsed
      assert.strictEqual(used.length, 100)
      used = undefined
      yield* TestClock.withLive(StartupMemoryRelease.release(0))
      assert.isBelow(process.memoryUsage().heapUsed, before - 10 * MB)
    }))
})
