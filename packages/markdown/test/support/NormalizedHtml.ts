/**
 * HTML compared the way the golden set allows: parsed as an HTML5 fragment, attributes sorted,
 * entities decoded, runs of whitespace collapsed, whitespace around block tags dropped.
 */
import type { Element, Root, RootContent } from "hast"
import { fromHtml } from "hast-util-from-html"
import { find, html } from "property-information"

const blocks = new Set([
  "p", "li", "ul", "ol", "div", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "td", "th",
  "pre", "blockquote", "br", "dl", "dt", "dd", "details", "summary", "sup"
])

const attributeText = (value: unknown): string =>
  value === true ? "" : Array.isArray(value) ? value.join(" ") : String(value)

const serialize = (node: Root | RootContent): string => {
  if (node.type === "text") return node.value.replace(/\s+/g, " ").replace(/&/g, "&amp;").replace(/</g, "&lt;")
  if (node.type === "root") return node.children.map(serialize).join("")
  if (node.type !== "element") return ""
  const element: Element = node
  const attributes = Object.entries(element.properties)
    .filter(([, value]) => value !== false && value !== null && value !== undefined)
    .map(([key, value]) => `${find(html, key).attribute}="${attributeText(value)}"`)
    .sort()
  const open = `<${element.tagName}${attributes.map((a) => ` ${a}`).join("")}>`
  const marker = blocks.has(element.tagName) ? "\u0001" : ""
  return `${marker}${open}${marker}${element.children.map(serialize).join("")}${marker}</${element.tagName}>${marker}`
}

export const normalizeHtml = (value: string): string =>
  serialize(fromHtml(value, { fragment: true }))
    .replace(/ ?\u0001 ?/g, "\u0001")
    .replace(/\u0001+/g, "\n")
    .trim()
