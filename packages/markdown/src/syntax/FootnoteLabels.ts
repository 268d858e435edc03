/**
 * Footnote labels with spaces (`[^Source here 0 # 9-3]`): Forgejo's footnote parser takes any
 * label up to the closing bracket on its line, micromark's (like GitHub's) no label with
 * whitespace. Before parsing, the spaces and tabs inside such `[^…]` become private-use
 * characters micromark accepts, one for one so source offsets stay; the ids come out the same
 * (`cleanValue` treats any non-letter as a separator), and after parsing every other place the
 * characters landed gets its spaces and tabs back.
 */
import type { Nodes, Root } from "mdast"
import { forEachNode } from "./MdastWalk.ts"

const space = "\ue000"
const tab = "\ue001"
const spacedLabel = /\[\^([^[\]\n]*[ \t][^[\]\n]*)\]/g
const hidden = /[\ue000\ue001]/g

/** The source with spaced labels protected, or undefined when nothing needs it. */
export const protectFootnoteLabels = (source: string): string | undefined => {
  if (!source.includes("[^") || source.includes(space) || source.includes(tab)) return undefined
  let changed = false
  const protectedSource = source.replace(spacedLabel, (label: string, inner: string) => {
    if (inner.trim() === "") return label
    changed = true
    return `[^${inner.replaceAll(" ", space).replaceAll("\t", tab)}]`
  })
  return changed ? protectedSource : undefined
}

const reveal = (value: string): string => value.replace(hidden, (c) => (c === space ? " " : "\t"))

/** Puts the spaces back wherever the protected characters ended up outside footnote labels. */
export const revealFootnoteLabels = (tree: Root): void =>
  forEachNode(tree, (node: Nodes) => {
    if ("value" in node && typeof node.value === "string") node.value = reveal(node.value)
    if ("url" in node) node.url = reveal(node.url)
    if ("title" in node && typeof node.title === "string") node.title = reveal(node.title)
    if ("alt" in node && typeof node.alt === "string") node.alt = reveal(node.alt)
    if (node.type === "code" && typeof node.meta === "string") node.meta = reveal(node.meta)
  })
