/**
 * Task list items as Forgejo renders them: the checkbox is the item's first child,
 * `<input type="checkbox" disabled="" data-source-position="N" checked="">`, where N is the
 * source offset of the `[` (counting any front matter), and the text follows it directly.
 */
import type { Element, ElementContent, Root as HastRoot } from "hast"
import type { Root as MdastRoot } from "mdast"
import { forEachNode } from "./MdastWalk.ts"

/** Records each task item's `[` offset on the item (it survives the raw HTML re-parse). */
export const markTaskListItems = (tree: MdastRoot, source: string, offset: number): void =>
  forEachNode(tree, (node) => {
    if (node.type !== "listItem" || typeof node.checked !== "boolean") return
    const start = node.position?.start.offset
    const position = start === undefined ? -1 : offset + source.indexOf("[", start)
    node.data = { ...node.data, hProperties: { ...node.data?.hProperties, dataSourcePosition: String(position) } }
  })

const classes = (element: Element): ReadonlyArray<unknown> => {
  const value = element.properties["className"]
  return Array.isArray(value) ? value : []
}

/** Removes the checkbox (and the space after it) that mdast-util-to-hast put first in the item. */
const takeCheckbox = (children: Array<ElementContent>): Element | undefined => {
  const index = children.findIndex((child) => child.type !== "text" || child.value.trim() !== "")
  const first = children[index]
  if (first?.type !== "element") return undefined
  if (first.tagName === "input") {
    const next = children[index + 1]
    children.splice(index, next?.type === "text" && next.value === " " ? 2 : 1)
    return first
  }
  return first.tagName === "p" ? takeCheckbox(first.children) : undefined
}

const visit = (node: HastRoot | Element): void => {
  for (const child of node.children) {
    if (child.type !== "element") continue
    if (child.tagName === "li" && classes(child).includes("task-list-item")) {
      const checkbox = takeCheckbox(child.children)
      const { dataSourcePosition, ...rest } = child.properties
      child.properties = rest
      if (checkbox !== undefined) {
        checkbox.properties = {
          type: "checkbox",
          disabled: true,
          dataSourcePosition: String(dataSourcePosition),
          ...(checkbox.properties["checked"] === true ? { checked: true } : {})
        }
        child.children.unshift(checkbox)
      }
    }
    visit(child)
  }
}

export const arrangeTaskListItems = (tree: HastRoot): void => visit(tree)
