import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { bindVisibility, Visibility } from "../../src/user/Visibility.ts"

describe("Visibility", () => {
  it("binds In(,public,limited,private)", () => {
    assert.strictEqual(Effect.runSync(bindVisibility("", "Visibility")), undefined)
    for (const value of ["public", "limited", "private"] as const) {
      assert.strictEqual(Effect.runSync(bindVisibility(value, "Visibility")), value)
    }
    for (const value of ["Public", "secret", " public"]) {
      assert.strictEqual(Effect.runSync(Effect.flip(bindVisibility(value, "Visibility"))).message, "[Visibility]: In")
    }
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(Visibility)("hidden")))
  })
})
