/**
 * Heading ids as goldmark's auto heading ids under Forgejo's id table: the heading's last source
 * line, cleaned (`## Foo *bar*` -> `user-content-foo-bar`). A trailing attribute block
 * `{#custom-id}` sets the id instead and is removed from the text.
 */
import type { Heading, Root } from "mdast"
import type { IdTable } from "../ForgejoSlug.ts"
import { forEachNode } from "./MdastWalk.ts"

const attributeBlock = /[ \t]*\{([^{}]*)\}[ \t]*$/

/** The `#id` of an attribute block such as `{#id .class key=value}`, when it is one. */
const attributeId = (block: string): string | undefined => {
  const parts = block.trim().split(/\s+/)
  if (!parts.every((part) => /^(#[^\s#.]+|\.[^\s#.]+|[\w-]+=\S*)$/.test(part))) return undefined
  return parts.find((part) => part.startsWith("#"))?.slice(1)
}

const sourceLine = (heading: Heading, source: string): string => {
  const first = heading.children[0]?.position?.start.offset
  const last = heading.children[heading.children.length - 1]?.position?.end.offset
  if (first === undefined || last === undefined) return ""
  const lines = source.slice(first, last).split("\n")
  return lines[lines.length - 1] ?? ""
}

/** Strips a trailing attribute block from the heading's text; answers its id. */
const takeCustomId = (heading: Heading): string | undefined => {
  const tail = heading.children[heading.children.length - 1]
  if (tail?.type !== "text") return undefined
  const match = attributeBlock.exec(tail.value)
  const id = match === null ? undefined : attributeId(match[1] ?? "")
  if (match === null || id === undefined) return undefined
  tail.value = tail.value.slice(0, match.index)
  return id
}

export const assignHeadingIds = (tree: Root, source: string, ids: IdTable): void =>
  forEachNode(tree, (node) => {
    if (node.type !== "heading") return
    const line = sourceLine(node, source)
    const id = takeCustomId(node) ?? ids.generate(line, "heading")
    node.data = { ...node.data, hProperties: { ...node.data?.hProperties, id } }
  })
