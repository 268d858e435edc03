/**
 * COPY text lines as a server restore reads them: every field the dump's SQL escaping can write
 * (modelled here as PostgreSQL does it) reads back as the original text, NULL as null, and JSON
 * columns go into the object as the JSON they hold, or fail.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as CopyText from "../../src/backup/CopyText.ts"

/** What DatabaseSnapshot's SELECT writes for a value (`replace` in the same order). */
const escaped = (value: string | null): string =>
  value === null ? "\\N" : value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll("\r", "\\r").replaceAll("\t", "\\t")

const text = fc.string({ unit: fc.constantFrom("a", "\\", "N", "\t", "\n", "\r", "n", "t", "\"", "é", "☃", ",", "{") })

describe("CopyText", () => {
  it("reads back every value the dump's escaping writes, NULL included", () => {
    fc.assert(fc.property(fc.array(fc.option(text, { nil: null }), { minLength: 1, maxLength: 6 }), (values) => {
      const line = values.map(escaped).join("\t")
      const [parsed] = CopyText.lines(new TextEncoder().encode(`${line}\n`))
      assert.strictEqual(parsed, line)
      const columns = values.map((_, index) => ({ name: `c${index}`, json: false }))
      const object: Record<string, unknown> = JSON.parse(CopyText.lineToJson(line, columns))
      assert.deepStrictEqual(values.map((_, index) => object[`c${index}`]), values)
    }))
  })

  it("puts a JSON column's text in as JSON, keeps its digits, and refuses text that is not one JSON value", () => {
    const columns = [{ name: "units", json: true }, { name: "name", json: false }]
    assert.strictEqual(
      CopyText.lineToJson("{\"n\": 123456789012345678901}\tx", columns),
      "{\"units\":{\"n\": 123456789012345678901},\"name\":\"x\"}"
    )
    assert.throws(() => CopyText.lineToJson("1,\"name\":\"injected\"\tx", columns))
    assert.throws(() => CopyText.lineToJson("only one field", columns))
  })
})
