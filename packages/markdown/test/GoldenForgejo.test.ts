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
