import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { isStorableText, pathNamesNothing } from "../../src/http/TextInputGuard.ts"

/** The rule as written: any segment not valid percent-encoded UTF-8, or not storable once decoded. */
const reference = (url: string): boolean => {
  const query = url.indexOf("?")
  try {
    return (query === -1 ? url : url.slice(0, query)).split("/").map(decodeURIComponent).some((segment) => !isStorableText(segment))
  } catch {
    return true
  }
}

describe("pathNamesNothing", () => {
  it("refuses NULs, lone surrogates and broken escapes in the path, not in the query", () => {
    expect(pathNamesNothing("/api/v1/users/alice")).toBe(false)
    expect(pathNamesNothing("/api/v1/users/a%00b")).toBe(true)
    expect(pathNamesNothing("/api/v1/users/%ED%A0%80")).toBe(true)
    expect(pathNamesNothing("/api/v1/users/%zz")).toBe(true)
    expect(pathNamesNothing("/api/v1/users/a\u0000")).toBe(true)
    expect(pathNamesNothing("/api/v1/users/alice?q=%zz")).toBe(false)
  })

  it("agrees with decoding every segment", () => {
    const piece = fc.constantFrom("a", "/", "%", "%00", "%2F", "%C3%A4", "%ED%A0%80", "%zz", "?", "\u0000", "ä", "\ud800")
    fc.assert(fc.property(fc.array(piece, { maxLength: 12 }).map((pieces) => `/${pieces.join("")}`), (url) => {
      expect(pathNamesNothing(url)).toBe(reference(url))
    }), { numRuns: 3_000 })
  })
})
