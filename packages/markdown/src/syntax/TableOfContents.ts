/**
 * Forgejo's table of contents (`toc.go`), shown in the document when the front matter says
 * `include_toc: true` (or `main`): `<details><summary>Table of Contents</summary><ul>…</ul></details>`
 * with a link per heading; a deeper heading opens a list nested directly in the list, as goldmark
 * builds it.
 */
import type { Element } from "hast"
import type { Nodes, Root } from "mdast"
import { forEachNode } from "./MdastWalk.ts"

export interface TocHeading {
  readonly level: number
  readonly id: string
  readonly text: string
}

/** Forgejo's `mdutil.Text`: the text nodes under a node (code spans and math included, raw HTML not). */
const textOf = (node: Nodes): string =>
  node.type === "text" || node.type === "inlineCode" || node.type === "forgejoInlineMath" ? node.value : "children" in node ? node.children.map(textOf).join("") : ""

/** The headings with the ids `assignHeadingIds` gave them, in document order. */
export const collectHeadings = (tree: Root): Array<TocHeading> => {
  const headings: Array<TocHeading> = []
  forEachNode(tree, (node) => {
    if (node.type !== "heading") return
    const id = node.data?.hProperties?.["id"]
    headings.push({ level: node.depth, id: typeof id === "string" ? id : "", text: textOf(node) })
  })
  return headings
}

/** Go's `url.QueryEscape`. */
const queryEscape = (value: string): string =>
  encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+")

/** The `toc` string of Forgejo's en-US locale. */
const title = "Table of Contents"

export const tocElement = (headings: ReadonlyArray<TocHeading>): Element | undefined => {
  if (headings.length === 0) return undefined
  const root: Element = { type: "element", tagName: "ul", properties: {}, children: [] }
  const lists: Array<Element> = [root]
  let level = Math.min(6, ...headings.map((heading) => heading.level))
  for (const heading of headings) {
    for (; level > heading.level; level--) if (lists.length > 1) lists.pop()
    for (; level < heading.level; level++) {
      const nested: Element = { type: "element", tagName: "ul", properties: {}, children: [] }
      lists[lists.length - 1]?.children.push(nested)
      lists.push(nested)
    }
    lists[lists.length - 1]?.children.push({
      type: "element",
      tagName: "li",
      properties: {},
      children: [{
        type: "element",
        tagName: "a",
        properties: { href: `#${queryEscape(heading.id)}` },
        children: [{ type: "text", value: heading.text }]
      }]
    })
  }
  return {
    type: "element",
    tagName: "details",
    properties: {},
    children: [{ type: "element", tagName: "summary", properties: {}, children: [{ type: "text", value: title }] }, root]
  }
}
