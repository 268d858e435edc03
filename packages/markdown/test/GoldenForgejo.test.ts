/**
 * The golden set: input -> HTML pairs from Forgejo's own tests (see golden/README.md), compared
 * after normalising insignificant whitespace and attribute order.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Root } from "hast"
import { fromHtml } from "hast-util-from-html"
import { toHtml } from "hast-util-to-html"
import { readFileSync } from "node:fs"
import { renderMarkdown } from "../src/Pipeline.ts"
import { emojiData } from "../src/postprocess/EmojiData.ts"
import { postProcess } from "../src/postprocess/PostProcess.ts"
import { renderSettings } from "../src/RenderSettings.ts"
import { sanitize } from "../src/Sanitizer.ts"
import { normalizeHtml } from "./support/NormalizedHtml.ts"

interface GoldenCase {
  readonly source: string
  readonly kind: "render" | "postprocess" | "sanitize"
  readonly mode: string
  readonly context: string
  readonly wiki: boolean
  readonly repository?: { readonly owner: string; readonly name: string }
  readonly mentionable?: ReadonlyArray<string>
  readonly input: string
  readonly expected: string
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
    case "postprocess": {
      const tree: Root = { type: "root", children: [{ type: "text", value: c.input }] }
      postProcess(tree, renderSettings(request, mentionable))
      return toHtml(tree)
    }
    case "sanitize":
      return toHtml(sanitize(fromHtml(c.input, { fragment: true })))
  }
}

describe("golden set from Forgejo's tests", () => {
  it("has at least 100 pairs", () => assert.isAtLeast(cases.length, 100))
  it.each(cases.map((c, i) => [i, c] as const))("#%i", (_, c) => {
    assert.strictEqual(normalizeHtml(actual(c)), normalizeHtml(c.expected), `${c.source}\ninput: ${JSON.stringify(c.input)}`)
  })
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
