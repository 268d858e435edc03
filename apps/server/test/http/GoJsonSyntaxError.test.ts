/** Go's json.Decoder errors for bodies that are not JSON, as Forgejo's binding reports them. */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { goJsonSyntaxError } from "../../src/http/GoJsonSyntaxError.ts"

describe("goJsonSyntaxError", () => {
  it.each([
    ["{bad", "invalid character 'b' looking for beginning of object key string"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ["nope", "invalid character 'o' in literal null (expecting 'u')"],
    ["<html>", "invalid character '<' looking for beginning of value"],
    [`{"a" 1}`, "invalid character '1' after object key"],
    [`{"a":1 "b":2}`, "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    [`{"a":tru}`, "invalid character '}' in literal true (expecting 'e')"],
    [`{"a":fals0}`, "invalid character '0' in literal false (expecting 'e')"],
    [`{"a":"\\x"}`, "invalid character 'x' in string escape code"],
    [`{"a":"\\u12g4"}`, "invalid character 'g' in \\u hexadecimal character escape"],
    ["{\"a\":\"line\nbreak\"}", "invalid character '\\n' in string literal"],
    [`{"a":01}`, "invalid character '1' after object key:value pair"],
    [`{"a":-x}`, "invalid character 'x' in numeric literal"],
    [`{"a":1.}`, "invalid character '}' after decimal point in numeric literal"],
    [`{"a":1e}`, "invalid character '}' in exponent of numeric literal"],
    ["\u00e9", "invalid character 'Ã' looking for beginning of value"],
    ["{\u0001}", "invalid character '\\x01' looking for beginning of object key string"],
    [`{"name":`, "unexpected EOF"],
    ["[", "unexpected EOF"],
    [`{"a":"open`, "unexpected EOF"],
    ["-", "unexpected EOF"],
    ["tr", "unexpected EOF"]
  ])("%j: %s", (body, message) => {
    expect(goJsonSyntaxError(body)).toBe(message)
  })

  // Decode reads one value and stops; an empty body is io.EOF, which the binding ignores.
  it.each(["", "   ", "{}", "[]", "5", "-1.5e+3", `"s"`, "null", `{"a":[1,{"b":true}]}`, "{} trailing", `{"a":1}}`, "5x"])(
    "%j decodes",
    (body) => {
      expect(goJsonSyntaxError(body)).toBeUndefined()
    }
  )

  // Go's maxNestingDepth: the scan's stack never grows past it (review finding 21: 32 MiB of `[`
  // took 1.3 s and 0.9 GB), and a long body is one pass; the bound is a hang guard.
  it("stops past Go's nesting limit and scans a long body once", () => {
    expect(goJsonSyntaxError("[".repeat(10_000))).toBe("unexpected EOF")
    expect(goJsonSyntaxError(`{"a":${"[".repeat(10_000)}`)).toBe("invalid character '[' exceeded max depth")
    const started = performance.now()
    expect(goJsonSyntaxError("[".repeat(32 * 1024 * 1024))).toBe("invalid character '[' exceeded max depth")
    expect(goJsonSyntaxError(`{"a":"${"x".repeat(8 * 1024 * 1024)}`)).toBe("unexpected EOF")
    expect(performance.now() - started).toBeLessThan(20_000)
  })

  it("reads every JSON text, and answers any text without throwing", () => {
    fc.assert(fc.property(fc.json(), (text) => goJsonSyntaxError(text) === undefined))
    fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => {
      const message = goJsonSyntaxError(text)
      return message === undefined || message === "unexpected EOF" || message.startsWith("invalid character ")
    }))
  })
})
