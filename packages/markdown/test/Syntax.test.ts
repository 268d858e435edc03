/** The small rules underneath: Forgejo's slugs, URL joining, mention candidates and MarkdownOption. */
import { assert, describe, it } from "@effect/vitest"
import { decodeMarkdownOption } from "@kiln/domain/markdown/MarkdownOption"
import { Effect } from "effect"
import fc from "fast-check"
import { cleanValue, makeIdTable } from "../src/ForgejoSlug.ts"
import { isColor } from "../src/syntax/ColorPreviews.ts"
import { mentionCandidates } from "../src/postprocess/Mentions.ts"
import { isLink, urlJoin } from "../src/UrlJoin.ts"

describe("Forgejo slugs", () => {
  it("keep letters, numbers and _ lower-cased, one dash for any other run", () => {
    assert.strictEqual(cleanValue("  What is Wine Staging?  "), "what-is-wine-staging")
    assert.strictEqual(cleanValue("Foo & Bar -- __baz__"), "foo-bar-__baz__")
    assert.strictEqual(cleanValue("Ünïcödé 日本語 ١٢٣"), "ünïcödé-日本語-١٢٣")
    assert.strictEqual(cleanValue("?!"), "")
  })

  it("are always dash-separated words without leading or trailing dashes", () => {
    fc.assert(fc.property(fc.string(), (value) => /^([\p{L}\p{N}_]+(-[\p{L}\p{N}_]+)*)?$/u.test(cleanValue(value))))
  })

  it("the id table never hands out the same id twice", () => {
    fc.assert(fc.property(fc.array(fc.constantFrom("a", "A", "a-1", "a 1", "", "?"), { maxLength: 20 }), (values) => {
      const ids = makeIdTable()
      const generated = values.map((value) => ids.generate(value, "heading"))
      return new Set(generated).size === generated.length && generated.every((id) => id.startsWith("user-content-"))
    }))
  })
})

describe("URL joining as Forgejo's util.URLJoin", () => {
  it("joins, cleans and resolves like Go's path.Join and url.ResolveReference", () => {
    assert.strictEqual(urlJoin("http://localhost:3000/gogits/gogs/", "../../.images/a.jpg"), "http://localhost:3000/.images/a.jpg")
    assert.strictEqual(urlJoin("http://localhost:3000/o/r", "wiki", "Page"), "http://localhost:3000/o/r/wiki/Page")
    assert.strictEqual(urlJoin("", "file.bin"), "/file.bin")
    assert.strictEqual(urlJoin("/relative/path", "./a/../b"), "/relative/path/b")
    assert.strictEqual(urlJoin("owner/repo", "/x"), "x")
    assert.strictEqual(urlJoin("http://h/", "javascript:alert(1)"), "javascript:alert(1)")
    assert.strictEqual(urlJoin("http://h/", "%zz"), "")
  })

  it("treats only lower-case scheme://... as a link", () => {
    assert.deepStrictEqual(["https://x", "ftp://x", "HTTPS://x", "mailto:x", "x"].map(isLink), [true, true, false, false, false])
  })
})

describe("mention candidates", () => {
  it("include every name a render could link, prefixes before dots too", () => {
    assert.deepStrictEqual(
      [...mentionCandidates("hi @alice, **@bob** and @carol.smith. and foo@bar.example")].sort(),
      ["alice", "bar", "bar.example", "bob", "carol", "carol.smith"].sort()
    )
  })

  it("are bounded", () => {
    assert.strictEqual(mentionCandidates(Array.from({ length: 5000 }, (_, i) => `@u${i}`).join(" "), 100).length, 100)
  })
})

describe("MarkdownOption", () => {
  it.effect("matches keys case-insensitively, preferring Go's spelling", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* decodeMarkdownOption({ text: "a", MODE: "gfm", Context: "o/r", wiki: true }),
        { text: "a", mode: "gfm", context: "o/r", wiki: true }
      )
      assert.strictEqual((yield* decodeMarkdownOption({ text: "lower", Text: "exact" })).text, "exact")
    }))

  it.effect("absent and null fields are empty", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* decodeMarkdownOption({ Text: null }), { text: "", mode: "", context: "", wiki: false })
    }))

  it.effect("a wrong type or a non-object body is Invalid (the endpoint's 422)", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Effect.flip(decodeMarkdownOption({ Text: 1 }))).field, "Text")
      assert.strictEqual((yield* Effect.flip(decodeMarkdownOption({ Wiki: "yes" }))).field, "Wiki")
      assert.strictEqual((yield* Effect.flip(decodeMarkdownOption([1]))).message, "json: cannot unmarshal into Go value of type MarkdownOption")
    }))
})

describe("colour previews", () => {
  // modules/markup/markdown/color_util_test.go TestMatchColor
  const cases: ReadonlyArray<readonly [string, boolean]> = [
    ["#ddeeffa0", true], ["#ddeefe", true], ["#abcdef", true], ["#fffa", true], ["#abcdeg", false], ["#abcdefg0", false],
    ["black", false], ["violet", false], ["rgb(255, 255, 255)", true], ["rgb(0, 0, 0)", true], ["rgb(256, 0, 0)", false],
    ["rgb(0, 256, 0)", false], ["rgb(0, 0, 256)", false], ["rgb(0, 0, 0, 1)", false], ["rgba(0, 0, 0)", false],
    ["rgba(0, 255, 0, 1)", true], ["rgba(32, 255, 12, 0.55)", true], ["rgba(32, 256, 12, 0.55)", false],
    ["hsl(0, 0%, 0%)", true], ["hsl(360, 100%, 100%)", true], ["hsl(361, 100%, 50%)", false], ["hsl(360, 101%, 50%)", false],
    ["hsl(360, 100%, 101%)", false], ["hsl(0, 0%, 0%, 0)", false], ["hsla(0, 0%, 0%)", false], ["hsla(0, 0%, 0%, 0)", true],
    ["hsla(0, 0%, 0%, 1)", true], ["hsla(0, 0%, 0%, 0.5)", true], ["hsla(0, 0%, 0%, 1.5)", false]
  ]
  it("recognise Forgejo's colour syntax", () => {
    assert.deepStrictEqual(cases.map(([value]) => [value, isColor(value)]), cases.map(([value, expected]) => [value, expected]))
  })
})
