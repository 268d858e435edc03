import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { isSteady } from "../../bench/WarmUpSteadiness.ts"

describe("WarmUpSteadiness.isSteady", () => {
  it("needs six slices: three that agree, and agree with the three before them", () => {
    assert.isFalse(isSteady([100, 100, 100]))
    assert.isFalse(isSteady([100, 100, 100, 100, 100]))
    assert.isTrue(isSteady([100, 100, 100, 100, 100, 100]))
    assert.isTrue(isSteady([500, 300, 102, 98, 100, 101, 99, 100]))
    assert.isFalse(isSteady([0, 0, 0, 0, 0, 0]))
  })

  it("is not over while a figure falls a few percent per slice (a server still compiling)", () => {
    // Each three agree within 5% of their mean; the fall shows between the two groups of three.
    const falling = [130, 126, 122, 118, 114, 110, 106, 102]
    assert.isTrue(falling.slice(-3).every((figure) => Math.abs(figure - 106) <= 0.05 * 106))
    assert.isFalse(isSteady(falling))
    fc.assert(fc.property(fc.double({ min: 0.02, max: 0.2, noNaN: true }), fc.double({ min: 10, max: 10_000, noNaN: true }), (fall, start) => {
      const figures = Array.from({ length: 6 }, (_, index) => start * (1 - fall) ** index)
      assert.isFalse(isSteady(figures))
    }))
  })

  it("is over for figures that only wander within the spread", () => {
    fc.assert(fc.property(
      fc.array(fc.double({ min: -0.02, max: 0.02, noNaN: true }), { minLength: 6, maxLength: 12 }),
      fc.double({ min: 10, max: 10_000, noNaN: true }),
      (noise, level) => {
        assert.isTrue(isSteady(noise.map((offset) => level * (1 + offset))))
      }
    ))
  })
})
