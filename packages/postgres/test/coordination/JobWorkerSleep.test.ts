import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { sleepMillis } from "../../src/coordination/JobWorker.ts"

describe("JobWorker.sleepMillis", () => {
  it("sleeps whole milliseconds, never less than until the next job is due unless the poll interval is shorter, at least 1", () => {
    fc.assert(fc.property(
      fc.option(fc.double({ min: 0, max: 1e7, noNaN: true }), { nil: undefined }),
      fc.integer({ min: 1, max: 60_000 }),
      (untilDue, pollInterval) => {
        const sleep = sleepMillis(untilDue, pollInterval)
        assert.isTrue(Number.isInteger(sleep), String(sleep))
        assert.isAtLeast(sleep, 1)
        assert.isAtMost(sleep, pollInterval)
        if (untilDue !== undefined && untilDue <= pollInterval) assert.isAtLeast(sleep, untilDue)
      }
    ))
    assert.strictEqual(sleepMillis(851.537, 5_000), 852)
    assert.strictEqual(sleepMillis(undefined, 5_000), 5_000)
    assert.strictEqual(sleepMillis(0, 5_000), 1)
  })
})
