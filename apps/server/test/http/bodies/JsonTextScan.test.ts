/**
 * Review finding 21: a JSON body's depth and storable text are checked by one scan of its text
 * (JSON.parse is left to the route's decoder), with the verdicts of a walk of the parsed value.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { jsonTextProblem, MAX_JSON_DEPTH } from "../../../src/http/bodies/JsonTextScan.ts"

const storable = (text: string) => !text.includes("\u0000") && text.isWellFormed()

/** What a walk of the parsed value finds: every string and key storable, and the depth. */
const walk = (value: unknown, depth = 0): { readonly storable: boolean; readonly depth: number } => {
  if (typeof value === "string") return { storable: storable(value), depth }
  if (typeof value !== "object" || value === null) return { storable: true, depth }
  const entries = Array.isArray(value) ? value.map((item) => ["", item] as const) : Object.entries(value)
  let deepest = depth + 1
  let ok = true
  for (const [key, item] of entries) {
    const inner = walk(item, depth + 1)
    ok = ok && storable(key) && inner.storable
    deepest = Math.max(deepest, inner.depth)
  }
  return { storable: ok, depth: deepest }
}

describe("jsonTextProblem", () => {
  it.each([
    [`{"name":"a\\u0000b"}`, { _tag: "Unstorable", topLevelKey: "name" }],
    [`{"ok":1,"name":{"x":["\\ud800"]}}`, { _tag: "Unstorable", topLevelKey: "name" }],
    [`{"a\\u0000":1}`, { _tag: "Unstorable", topLevelKey: undefined }],
    [`{"name":{"bad\\udc00key":1}}`, { _tag: "Unstorable", topLevelKey: "name" }],
    [`["\\u0000"]`, { _tag: "Unstorable", topLevelKey: undefined }],
    [`"\\udfff"`, { _tag: "Unstorable", topLevelKey: undefined }],
    [`{"n\\u0061me":"\\u0000"}`, { _tag: "Unstorable", topLevelKey: "name" }],
    [`{"name":"x","other":"\\u0000"}`, { _tag: "Unstorable", topLevelKey: "other" }],
    [`{"a":${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}}`, { _tag: "TooDeep" }]
  ])("%j", (text, problem) => {
    expect(jsonTextProblem(text)).toEqual(problem)
  })

  it.each([
    `{"name":"\\ud83d\\ude00 \\\\u0000 \\"[[["}`,
    `{"a":${"[".repeat(MAX_JSON_DEPTH - 1)}${"]".repeat(MAX_JSON_DEPTH - 1)}}`,
    "not json",
    `{"open":"`,
    "]]]]"
  ])("%j passes", (text) => {
    expect(jsonTextProblem(text)).toBeUndefined()
  })

  it("agrees with a walk of the parsed value", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "\u0000", "\ud800", "\udc00", "\ud83d\ude00", "\"", "\\", "[", "{") })
    const value = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.array(tie("value")), fc.dictionary(text, tie("value")))
    })).value
    fc.assert(fc.property(value, (parsed) => {
      const expected = walk(parsed)
      const problem = jsonTextProblem(JSON.stringify(parsed))
      if (expected.depth > MAX_JSON_DEPTH) return expect(problem?._tag).toBe("TooDeep")
      expect(problem === undefined).toBe(expected.storable)
    }), { numRuns: 500 })
  })

  // A hang guard: 32 MiB of nesting or of one string is one pass.
  it("stops at the depth limit and scans a long string once", () => {
    const started = performance.now()
    expect(jsonTextProblem("[".repeat(32 * 1024 * 1024))).toEqual({ _tag: "TooDeep" })
    expect(jsonTextProblem(`{"name":"${"x".repeat(32 * 1024 * 1024)}"}`)).toBeUndefined()
    expect(performance.now() - started).toBeLessThan(20_000)
  })
})
