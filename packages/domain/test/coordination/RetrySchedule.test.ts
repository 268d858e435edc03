import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as RetrySchedule from "@kiln/domain/coordination/RetrySchedule"

describe("RetrySchedule.exponential", () => {
  it("starts at the initial delay, doubles, stays under the cap, and stops at the last attempt", () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 100_000 }),
      fc.integer({ min: 1, max: 10_000_000 }),
      fc.integer({ min: 1, max: 100 }),
      (initial, max, maxAttempts) => {
        const schedule = RetrySchedule.exponential({ initial, max, maxAttempts })
        for (let attempts = 1; attempts < maxAttempts; attempts++) {
          const delay = schedule(attempts)
          assert.strictEqual(delay, Math.min(max, initial * 2 ** (attempts - 1)))
        }
        assert.strictEqual(schedule(maxAttempts), undefined)
        assert.strictEqual(schedule(maxAttempts + 1), undefined)
      }
    ))
  })

  it("is Forgejo-like with the default settings: 10 s, 20 s, ... at most an hour, 8 attempts", () => {
    const schedule = RetrySchedule.exponential({ initial: 10_000, max: 3_600_000, maxAttempts: 8 })
    assert.deepStrictEqual([1, 2, 3, 4, 5, 6, 7, 8].map(schedule), [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, undefined])
  })
})
