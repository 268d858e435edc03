/**
 * Footnotes in Forgejo's shape (`modules/markup/common/footnote.go`): numbered in the order
 * they are first referenced, named by the cleaned label through the shared id table,
 * `<sup id="fnref:NAME"><a href="#fn:NAME">N</a></sup>` at the reference and, at the end,
 * `<div><hr><ol><li id="fn:NAME">...</li></ol></div>` with a `↩︎` link back appended to the
 * definition's last paragraph. Unreferenced definitions are dropped.
 */
import type { Element } from "hast"
import type { Blockquote, FootnoteDefinition, FootnoteReference, ListItem, Root } from "mdast"
import type { State } from "mdast-util-to-hast"
import type { IdTable } from "../ForgejoSlug.ts"
import { forEachNode, forEachPhrasingParent } from "./MdastWalk.ts"

interface Numbered {
  readonly index: number
  readonly name: string
}

const backArrow = "\u21a9\ufe0e"
const numbering = new WeakMap<FootnoteReference, Numbered>()

const backLink = (name: string): { readonly href: string; readonly html: string } => ({
  href: `#fnref:${name}`,
  // `name` is cleaned to letters, numbers, `_` and `-`, so it is safe inside the attribute.
  html: ` <a href="#fnref:${name}">${backArrow}</a>`
})

const footnoteItem = (definition: FootnoteDefinition, numbered: Numbered): ListItem => {
  const children = [...definition.children]
  const last = children[children.length - 1]
  const link = backLink(numbered.name)
  if (last?.type === "paragraph") {
    children[children.length - 1] = {
      ...last,
      children: [...last.children, { type: "text", value: " " }, {
        type: "link",
        url: link.href,
        title: null,
        children: [{ type: "text", value: backArrow }]
      }]
    }
  } else {
    children.push({ type: "html", value: link.html })
  }
  return { type: "listItem", spread: true, children, data: { hProperties: { id: `fn:${numbered.name}` } } }
}

/**
 * Forgejo's footnote parser also starts at `!` (so that `![^1]` is no image) and takes the `!`
 * into the reference: `Citation needed![^1]` renders without its `!`. micromark, like GitHub,
 * keeps it as text. A reference here exists only for a defined label, as Forgejo's parser takes
 * only those; an escaped `\!` stays, as goldmark's escape is read before the footnote parser.
 */
export const takeBangsIntoFootnotes = (tree: Root, source: string): void => {
  forEachPhrasingParent(tree, (parent) => {
    parent.children.forEach((node, index) => {
      if (node.type !== "footnoteReference") return
      const before = parent.children[index - 1]
      const start = node.position?.start.offset
      if (before?.type !== "text" || !before.value.endsWith("!") || start === undefined) return
      if (before.position?.end.offset !== start || source[start - 1] !== "!" || source[start - 2] === "\\") return
      before.value = before.value.slice(0, -1)
    })
  })
}

/** Numbers the references and appends the footnote list; call after headings took their ids. */
export const arrangeFootnotes = (tree: Root, ids: IdTable): void => {
  const definitions = new Map<string, FootnoteDefinition>()
  forEachNode(tree, (node) => {
    if (node.type === "footnoteDefinition" && !definitions.has(node.identifier)) definitions.set(node.identifier, node)
  })
  if (definitions.size === 0) return
  const byDefinition = new Map<FootnoteDefinition, Numbered>()
  forEachNode(tree, (node) => {
    if (node.type !== "footnoteReference") return
    const definition = definitions.get(node.identifier)
    if (definition === undefined) return
    let numbered = byDefinition.get(definition)
    if (numbered === undefined) {
      const index = byDefinition.size + 1
      numbered = { index, name: ids.generate(definition.label ?? definition.identifier, String(index)) }
      byDefinition.set(definition, numbered)
    }
    numbering.set(node, numbered)
  })
  tree.children = tree.children.filter((node) => node.type !== "footnoteDefinition")
  if (byDefinition.size === 0) return
  const items = [...byDefinition].map(([definition, numbered]) => footnoteItem(definition, numbered))
  const list: Blockquote = {
    type: "blockquote",
    children: [{ type: "thematicBreak" }, { type: "list", ordered: true, start: 1, spread: true, children: items }],
    data: { hName: "div" }
  }
  tree.children.push(list)
}

/** The remark-rehype handler for references numbered by `arrangeFootnotes`. */
export const footnoteReferenceHandler = (state: State, node: FootnoteReference): Element | undefined => {
  const numbered = numbering.get(node)
  if (numbered === undefined) return undefined
  const link: Element = {
    type: "element",
    tagName: "a",
    properties: { href: `#fn:${numbered.name}` },
    children: [{ type: "text", value: String(numbered.index) }]
  }
  const sup: Element = { type: "element", tagName: "sup", properties: { id: `fnref:${numbered.name}` }, children: [link] }
  state.patch(node, sup)
  return sup
}
