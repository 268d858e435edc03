import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { rfc3339 } from "../../src/wire/Time.ts"

/** What rfc3339 must equal: the ISO form without its milliseconds. */
const reference = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")

describe("rfc3339", () => {
  it("writes seconds-precision UTC timestamps", () => {
    expect(rfc3339(0)).toBe("1970-01-01T00:00:00Z")
    expect(rfc3339(1_700_000_000)).toBe("2023-11-14T22:13:20Z")
    expect(rfc3339(951_782_400)).toBe("2000-02-29T00:00:00Z")
    expect(rfc3339(-1)).toBe("1969-12-31T23:59:59Z")
  })

  it("equals the ISO form without milliseconds, also for years toISOString writes otherwise and fractional seconds", () => {
    for (const seconds of [-62_135_596_800, -62_135_596_801, 253_402_300_799, 253_402_300_800, -30_610_224_001, 1.5, -0.25]) {
      expect(rfc3339(seconds)).toBe(reference(seconds))
    }
    fc.assert(fc.property(fc.integer({ min: -8_640_000_000_000, max: 8_640_000_000_000 }), (seconds) => {
      expect(rfc3339(seconds)).toBe(reference(seconds))
    }), { numRuns: 2_000 })
  })
})
