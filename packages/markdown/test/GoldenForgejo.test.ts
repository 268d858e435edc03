/**
 * The golden set: input -> HTML pairs from Forgejo's own tests (see golden/README.md), compared
 * after normalising insignificant whitespace and attribute order.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Root } from "hast"
import { fromHtml } from "hast-util-from-html"
import { toHtml } from "hast-util-to-html"
import { readFileSync } from "node:fs"
import { cleanValue } from "../src/ForgejoSlug.ts"
import { renderMarkdown } from "../src/Pipeline.ts"
import { emojiData } from "../src/postprocess/EmojiData.ts"
import { postProcess } from "../src/postprocess/PostProcess.ts"
import { renderSettings } from "../src/RenderSettings.ts"
import { sanitize } from "../src/Sanitizer.ts"
import { normalizeHtml } from "./support/NormalizedHtml.ts"

interface GoldenCase {
  readonly source: string
  readonly kind: "render" | "postprocess" | "postprocessHtml" | "sanitize" | "cleanValue"
  readonly mode: string
  readonly context: string
  readonly wiki: boolean
  readonly repository?: { readonly owner: string; readonly name: string }
  readonly mentionable?: ReadonlyArray<string>
  readonly input: string
  readonly expected: string
  /** How the output is checked: the normalized HTML (default), or as the Forgejo test checks it. */
  readonly compare?: "contains" | "notContains" | "paragraphCount" | "noError"
  readonly expectedParts?: ReadonlyArray<string>
  readonly adjusted?: string
}

const rootUrl = "http://localhost:3000/"
const cases: ReadonlyArray<GoldenCase> = JSON.parse(readFileSync(new URL("./golden/forgejo-cases.json", import.meta.url), "utf8"))

const actual = (c: GoldenCase): string => {
  const request = { text: c.input, mode: c.mode, context: c.context, wiki: c.wiki, rootUrl, repository: c.repository }
  const mentionable = new Set(c.mentionable ?? [])
  switch (c.kind) {
    case "render":
      return renderMarkdown(request, mentionable)
    case "postprocess":
    case "postprocessHtml": {
      const tree: Root = c.kind === "postprocess"
        ? { type: "root", children: [{ type: "text", value: c.input }] }
        : fromHtml(c.input, { fragment: true })
      postProcess(tree, renderSettings(request, mentionable))
      return toHtml(tree)
    }
    case "sanitize":
      return toHtml(sanitize(fromHtml(c.input, { fragment: true })))
    case "cleanValue":
      return cleanValue(c.input)
  }
}

const check = (c: GoldenCase): void => {
  const message = `${c.source}\ninput: ${JSON.stringify(c.input)}`
  const html = actual(c)
  switch (c.compare) {
    case "contains":
      for (const part of c.expectedParts ?? []) assert.include(html, part, message)
      return
    case "notContains":
      for (const part of c.expectedParts ?? []) assert.notInclude(html, part, message)
      return
    case "paragraphCount":
      assert.strictEqual(html.split("<p").length - 1, Number(c.expected), message)
      return
    case "noError":
      assert.isString(html, message)
      return
    case undefined:
      if (c.kind === "cleanValue") assert.strictEqual(html, c.expected, message)
      else assert.strictEqual(normalizeHtml(html), normalizeHtml(c.expected), message)
  }
}

describe("golden set from Forgejo's tests", () => {
  it("has at least 100 pairs", () => assert.isAtLeast(cases.length, 100))
  it.each(cases.map((c, i) => [i, c] as const))("#%i", (_, c) => check(c))
})

/**
 * Forgejo's emoji sweep (html_test.go TestRender_emoji): every emoji of the table, as the character
 * and as its first `:alias:`, renders as one span naming the emoji's description and first alias.
 */
describe("Forgejo's emoji sweep", () => {
  const renderComment = (text: string): string =>
    renderMarkdown({ text, mode: "comment", context: "gogits/gogs", wiki: false, rootUrl, repository: undefined }, new Set())
  const expected = (emoji: string, description: string, alias: string): string =>
    `<p><span class="emoji" aria-label="${description.replaceAll("&", "&amp;")}" data-alias="${alias}">${emoji}</span></p>`
  const failures = (input: (emoji: string, alias: string) => string): Array<string> =>
    emojiData.flatMap(([emoji, description, aliases]) => {
      const alias = aliases.split(" ")[0] ?? ""
      const text = input(emoji, alias)
      const html = renderComment(text)
      return normalizeHtml(html) === normalizeHtml(expected(emoji, description, alias)) ? [] : [`${text} => ${html}`]
    })

  it("covers Forgejo's whole table", () => assert.strictEqual(emojiData.length, 3395))
  it("renders every emoji character", () => assert.deepStrictEqual(failures((emoji) => emoji), []))
  it("renders every emoji's first alias", () => assert.deepStrictEqual(failures((_, alias) => `:${alias}:`), []))
})
