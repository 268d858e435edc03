/**
 * Front matter shown as Forgejo shows it (`convertyaml.go`): a mapping is a table whose header
 * row holds the keys and whose one body row holds the values, a sequence a one-column table,
 * a scalar its text as written; in `details` mode the table sits in
 * `<details><summary><i class="icon ICON"></i></summary>…</details>`.
 */
import type { Element, ElementContent } from "hast"
import { isAlias, isMap, isScalar, isSeq } from "yaml"
import type { RenderConfig } from "./FrontMatter.ts"

const element = (tagName: string, children: Array<ElementContent>, properties: Element["properties"] = {}): Element => ({
  type: "element",
  tagName,
  properties,
  children
})

const nodeToContent = (node: unknown): ElementContent => {
  if (isMap(node)) {
    const keys = node.items.map((pair) => element("th", [nodeToContent(pair.key)]))
    const values = node.items.map((pair) => element("td", [nodeToContent(pair.value)]))
    return element("table", [element("thead", [element("tr", keys)]), element("tbody", [element("tr", values)])])
  }
  if (isSeq(node)) {
    return element("table", [element("tbody", node.items.map((item) => element("tr", [element("td", [nodeToContent(item)])])))])
  }
  // yaml.v3's `Value`: a scalar as written (quotes and escapes resolved), an alias its anchor's name.
  const value = isScalar(node) ? node.source ?? (node.value === null ? "" : String(node.value)) : isAlias(node) ? node.source : ""
  return { type: "text", value }
}

/** Go's `validNameRE`: other icon names are left out. */
const iconName = /^[a-z ]+$/

export const metaElement = (config: RenderConfig): Element | undefined => {
  if (config.meta === "none") return undefined
  const table = nodeToContent(config.root)
  if (table.type !== "element") return undefined
  if (config.meta === "table") return table
  const icon = config.icon.trim().toLowerCase()
  const summary = element("summary", iconName.test(icon) ? [element("i", [], { className: [`icon ${icon}`] })] : [])
  return element("details", [summary, table])
}
