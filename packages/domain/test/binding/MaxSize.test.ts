/** `MaxSize` counts characters as Go's utf8.RuneCountInString does, whatever the length. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import fc from "fast-check"
import { checkMaxSize, isLongerThan } from "../../src/binding/MaxSize.ts"

describe("MaxSize", () => {
  it("is longer than max exactly when it has more than max code points", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.integer({ min: 0, max: 400 }), (value, max) =>
      isLongerThan(value, max) === [...value].length > max
    ))
  })

  it("counts a surrogate pair as one character", () => {
    assert.isFalse(isLongerThan("😀".repeat(255), 255))
    assert.isTrue(isLongerThan("😀".repeat(256), 255))
  })

  it.effect("fails with the Go field's name", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.exit(checkMaxSize("Title", "x".repeat(256), 255))
      assert.deepStrictEqual(Exit.isFailure(refused) ? refused.cause.toString().includes("[Title]: MaxSize") : false, true)
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(checkMaxSize("Title", undefined, 255))))
    }))
})
