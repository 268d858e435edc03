import { assert, describe, it } from "@effect/vitest"
import { FailedSignIns } from "../../src/auth/FailedSignIns.ts"

describe("FailedSignIns", () => {
  it("refuses a key with `limit` failures until its window, opened by the first failure, ends", () => {
    const failures = new FailedSignIns(1_000)
    failures.record("a", 100)
    failures.record("a", 500)
    assert.isUndefined(failures.refusedFor("a", 3, 600))
    failures.record("a", 700)
    assert.strictEqual(failures.refusedFor("a", 3, 800), 300)
    assert.isUndefined(failures.refusedFor("b", 3, 800))
    assert.isUndefined(failures.refusedFor("a", 3, 1_100))
    // A new window opens with the next failure.
    failures.record("a", 1_200)
    assert.isUndefined(failures.refusedFor("a", 2, 1_300))
  })

  it("never refuses with a limit of 0, and forgets a key that is cleared", () => {
    const failures = new FailedSignIns(1_000)
    for (let i = 0; i < 10; i++) failures.record("a", i)
    assert.isUndefined(failures.refusedFor("a", 0, 10))
    assert.isDefined(failures.refusedFor("a", 5, 10))
    failures.clear("a")
    assert.isUndefined(failures.refusedFor("a", 5, 10))
  })

  it("keeps at most maxKeys keys, forgetting the oldest windows first", () => {
    const failures = new FailedSignIns(1_000, 2)
    failures.record("a", 1)
    failures.record("b", 2)
    failures.record("c", 3)
    assert.isUndefined(failures.refusedFor("a", 1, 4))
    assert.isDefined(failures.refusedFor("b", 1, 4))
    assert.isDefined(failures.refusedFor("c", 1, 4))
  })
})
