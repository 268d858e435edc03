/** Walking the markdown tree: every node in document order, or the nodes that hold inline content. */
import type { Delete, Emphasis, Heading, Link, LinkReference, Nodes, Paragraph, Strong, TableCell } from "mdast"

/** The nodes whose children are inline (phrasing) content, so inline nodes may be swapped freely. */
export type PhrasingParent = Delete | Emphasis | Heading | Link | LinkReference | Paragraph | Strong | TableCell

const isPhrasingParent = (node: Nodes): node is PhrasingParent => {
  switch (node.type) {
    case "delete":
    case "emphasis":
    case "heading":
    case "link":
    case "linkReference":
    case "paragraph":
    case "strong":
    case "tableCell":
      return true
    default:
      return false
  }
}

/** Visits every node in document order (a node before its children). */
export const forEachNode = (node: Nodes, visit: (node: Nodes) => void): void => {
  visit(node)
  if ("children" in node) for (const child of node.children) forEachNode(child, visit)
}

/** Visits each phrasing parent before its children, so `visit` may replace the children it then walks. */
export const forEachPhrasingParent = (node: Nodes, visit: (parent: PhrasingParent) => void): void => {
  if (isPhrasingParent(node)) visit(node)
  if ("children" in node) for (const child of node.children) forEachPhrasingParent(child, visit)
}
