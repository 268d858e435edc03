import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { gitTimestamp } from "../../src/wire/Branch.ts"

describe("Branch JSON timestamps", () => {
  it("render a git time in its own zone, as Go's RFC 3339 does", () => {
    assert.strictEqual(gitTimestamp({ seconds: 1_704_207_845, offsetMinutes: 0 }), "2024-01-02T15:04:05Z")
    assert.strictEqual(gitTimestamp({ seconds: 1_704_207_845, offsetMinutes: 60 }), "2024-01-02T16:04:05+01:00")
    assert.strictEqual(gitTimestamp({ seconds: 1_704_207_845, offsetMinutes: -300 }), "2024-01-02T10:04:05-05:00")
    assert.strictEqual(gitTimestamp({ seconds: 1_704_207_845, offsetMinutes: 345 }), "2024-01-02T20:49:05+05:45")
  })

  it("always denote the same instant as the git time", () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 4_000_000_000 }),
      fc.integer({ min: -12 * 60, max: 14 * 60 }),
      (seconds, offsetMinutes) => Date.parse(gitTimestamp({ seconds, offsetMinutes })) === seconds * 1000
    ))
  })
})
