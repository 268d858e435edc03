/**
 * The allow-list Forgejo sanitizes rendered HTML with (`modules/markup/sanitizer.go`: bluemonday's
 * UGC policy plus Forgejo's additions), with bluemonday's semantics: a disallowed element is
 * dropped but its text kept (script, style, frames, objects, templates, SVG and MathML are dropped
 * with their content); disallowed attributes are dropped, and an element that needs attributes
 * (a link, an image, a checkbox) is unwrapped when none remain; URLs with `javascript:`,
 * `vbscript:` or `data:` (in any case or encoding) are refused; every link gets `rel="nofollow"`,
 * plus `noopener` with `target="_blank"`.
 */
import type { Element, ElementContent, Properties, Root, RootContent } from "hast"
import { find, html, svg } from "property-information"

type Rules = ReadonlyMap<string, ReadonlyArray<RegExp>>

const anyValue = /(?:)/
const policy = new Map<string, Map<string, Array<RegExp>>>()
const globalRules = new Map<string, Array<RegExp>>()

const allow = (attributes: ReadonlyArray<string>, elements: ReadonlyArray<string>, pattern: RegExp = anyValue): void => {
  for (const element of elements) {
    const rules = policy.get(element) ?? new Map<string, Array<RegExp>>()
    policy.set(element, rules)
    for (const attribute of attributes) rules.set(attribute, [...(rules.get(attribute) ?? []), pattern])
  }
}
const allowElements = (...elements: ReadonlyArray<string>): void => allow([], elements)
const allowGlobally = (attribute: string, pattern: RegExp): void => {
  globalRules.set(attribute, [...(globalRules.get(attribute) ?? []), pattern])
}

// bluemonday UGCPolicy (regular expressions as bluemonday has them, anchored or not).
allowGlobally("dir", /auto|rtl|ltr/i)
allowGlobally("lang", /[a-zA-Z]{2,20}/)
allowGlobally("id", /[a-zA-Z0-9:\-_.]+/)
allowGlobally("title", /^[\p{L}\p{N}\s\-_',[\]!./\\()]*$/u)
allowElements("article", "aside", "figure", "section", "summary", "hgroup", "h1", "h2", "h3", "h4", "h5", "h6")
allow(["open"], ["details"])
allow(["cite"], ["blockquote", "q"])
allowElements("br", "div", "hr", "p", "span", "wbr")
allow(["href"], ["a"])
allowElements("abbr", "acronym", "cite", "code", "dfn", "em", "figcaption", "mark", "s", "samp", "strong", "sub", "sup", "var")
allow(["datetime"], ["time", "del", "ins"], /^[0-9TZ:+.\- ]+$/)
allowElements("b", "i", "pre", "small", "strike", "tt", "u", "rp", "rt", "ruby")
allow(["dir"], ["bdi", "bdo"], /auto|rtl|ltr/i)
allow(["cite"], ["del", "ins"])
allow(["type"], ["ol", "ul", "li"], /^[a-zA-Z0-9]+$/)
allow(["value"], ["li"], /^[0-9]+$/)
allowElements("dd", "dl", "dt", "ol", "ul", "li")
allowElements("table", "caption", "thead", "tbody", "tfoot", "tr", "td", "th", "col", "colgroup")
allow(["align", "valign", "width", "span"], ["col", "colgroup"])
allow(["align", "alt", "height", "width", "src"], ["img"])

// Forgejo's additions (createDefaultPolicy).
allow(["class"], ["pre"], /^code-block( is-loading)?$/)
allow(["class"], ["span"], /^color-preview$/)
allow(["class"], ["p"], /^attention-title$/)
allow(["class"], ["blockquote"], /^attention-header attention-\w+$/)
allow(["class"], ["strong"], /^attention-\w+$/)
allow(["class"], ["svg"], /^attention-icon attention-\w+ svg octicon-[\w-]+$/)
allow(["viewbox", "width", "height", "aria-hidden"], ["svg"])
allow(["fill-rule", "d"], ["path"])
allow(["class"], ["code"], /^(chroma )?language-[\w-]+( display)?( is-loading)?$/)
allow(["type"], ["input"], /^checkbox$/)
allow(["checked", "disabled", "data-source-position"], ["input"])
allow(["class"], ["a"], /^(ref-issue( ref-external-issue)?|mention)$/)
allow(["class"], ["li"], /^task-list-item$/)
allow(["class"], ["li"], /^(unchecked|checked|indeterminate)$/)
allow(["class"], ["i"], /^icon(\s+[\p{L}\p{N}_-]+)+$/u)
allow(["class"], ["img"], /^emoji$/)
allow(
  ["class"],
  ["span"],
  /^((icon(\s+[\p{L}\p{N}_-]+)+)|(emoji)|(language-math display)|(language-math inline))$|^([a-z][a-z0-9]{0,2})$|^issue-keyword$/u
)
allow(["data-alias"], ["span"], /^[a-zA-Z0-9\-_+]+$/)
allow(["class"], ["td"], /^(lines-num|lines-code chroma)$/)
allow(["class"], ["code"], /^code-inner$/)
allow(["class"], ["div"], /^file-preview-box$/)
allow(["class"], ["div"], /^ui table$/)
allow(["class"], ["div"], /^header$/)
allow(["data-line-number"], ["span"], /^[0-9]+$/)
allow(["class"], ["span"], /^text grey$/)
allow(["class"], ["table"], /^file-preview$/)
allow(["class"], ["td"], /^lines-escape$/)
allow(["class"], ["button"], /^toggle-escape-button btn interact-bg$/)
allow(["title"], ["button"])
allow(["class"], ["span"], /^ambiguous-code-point$/)
allow(["data-tooltip-content"], ["span"])
allow(["class"], ["a"], /^muted|(text black)$/)
allow(["class"], ["div"], /^ui warning message tw-text-left$/)
const generalSafeAttributes = [
  "abbr", "accept", "accept-charset", "accesskey", "action", "align", "alt", "aria-describedby", "aria-hidden",
  "aria-label", "aria-labelledby", "axis", "border", "cellpadding", "cellspacing", "char", "charoff", "charset",
  "checked", "clear", "cols", "colspan", "color", "compact", "coords", "datetime", "dir", "disabled", "enctype", "for",
  "frame", "headers", "height", "hreflang", "hspace", "ismap", "label", "lang", "maxlength", "media", "method",
  "multiple", "name", "nohref", "noshade", "nowrap", "open", "prompt", "readonly", "rel", "rev", "rows", "rowspan",
  "rules", "scope", "selected", "shape", "size", "span", "start", "summary", "tabindex", "target", "title", "type",
  "usemap", "valign", "value", "vspace", "width", "itemprop"
]
const generalSafeElements = [
  "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "br", "b", "i", "strong", "em", "a", "pre", "code", "img", "tt", "div",
  "ins", "del", "sup", "sub", "p", "ol", "ul", "table", "thead", "tbody", "tfoot", "blockquote", "label", "dl", "dt",
  "dd", "kbd", "q", "samp", "var", "hr", "ruby", "rt", "rp", "li", "tr", "td", "th", "s", "strike", "summary",
  "details", "caption", "figure", "figcaption", "abbr", "bdo", "cite", "dfn", "mark", "small", "span", "time", "video",
  "wbr"
]
allow(generalSafeAttributes, generalSafeElements)
allow(["src", "autoplay", "controls"], ["video"])
allow(["itemscope", "itemtype"], ["div"])

const styledElements = new Set(["span", "p", "th", "td"])
const styleProperties = new Set(["color", "background-color"])
const safeColor = /^(#[0-9a-f]{3,8}|[a-z]+|(rgb|rgba|hsl|hsla)\([0-9.,%\s]+\))$/i

/** Dropped together with everything inside them (bluemonday's; a template's content is not among its children). */
const dropWithContent = new Set([
  "script", "style", "iframe", "frame", "frameset", "noembed", "noframes", "noscript", "nostyle", "object", "title",
  "template"
])
const svgElements = new Set(["svg", "path"])

/** bluemonday keeps these without attributes; any other element loses its tag when none remain. */
const allowedWithoutAttributes = new Set([
  "abbr", "acronym", "address", "article", "aside", "b", "bdi", "blockquote", "br", "caption", "center", "cite",
  "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2",
  "h3", "h4", "h5", "h6", "hgroup", "hr", "i", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "rp", "rt", "ruby", "s",
  "samp", "section", "small", "span", "strike", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
  "thead", "tr", "tt", "u", "ul", "var", "wbr"
])

const urlAttributes = new Set(["href", "src", "cite", "action", "usemap", "poster", "longdesc", "background", "formaction"])
const deniedSchemes = new Set(["javascript", "vbscript", "data"])

/** bluemonday's `validURL` with Forgejo's scheme rules: any scheme except the three executable ones. */
export const isSafeUrl = (raw: string): boolean => {
  const url = raw.trim()
  if (/[ \t\n]/.test(url) || /[\u0000-\u001f\u007f]/.test(url) || /%(?![0-9a-fA-F]{2})/.test(url)) return false
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1]
  if (scheme !== undefined) return !deniedSchemes.has(scheme.toLowerCase())
  // Go's url.Parse refuses a colon in a scheme-less first segment.
  return url !== "" && !/^[^/?#]*:/.test(url)
}

const attributeValue = (value: Properties[string], commaSeparated: boolean): string | undefined => {
  if (value === null || value === undefined || value === false) return undefined
  if (value === true) return ""
  if (Array.isArray(value)) return value.join(commaSeparated ? ", " : " ")
  return String(value)
}

const cleanStyle = (style: string): string | undefined => {
  const kept: Array<string> = []
  for (const declaration of style.split(";")) {
    const colon = declaration.indexOf(":")
    if (colon === -1) continue
    const property = declaration.slice(0, colon).trim().toLowerCase()
    const value = declaration.slice(colon + 1).trim()
    if (styleProperties.has(property) && safeColor.test(value)) kept.push(`${property}: ${value}`)
  }
  return kept.length === 0 ? undefined : kept.join("; ")
}

const matchesAny = (rules: ReadonlyArray<RegExp> | undefined, value: string): boolean =>
  rules !== undefined && rules.some((rule) => rule.test(value))

const cleanProperties = (element: Element, tagName: string, rules: Rules): Properties => {
  const clean: Properties = {}
  const schema = svgElements.has(tagName) ? svg : html
  for (const [property, value] of Object.entries(element.properties)) {
    const info = find(schema, property)
    const name = info.attribute.toLowerCase()
    const text = attributeValue(value, info.commaSeparated)
    if (text === undefined) continue
    if (name === "style") {
      const style = styledElements.has(element.tagName) ? cleanStyle(text) : undefined
      if (style !== undefined) clean[property] = style
      continue
    }
    if (!matchesAny(rules.get(name), text) && !matchesAny(globalRules.get(name), text)) continue
    if (urlAttributes.has(name) && !isSafeUrl(text)) continue
    clean[property] = value
  }
  return clean
}

const tokens = (value: Properties[string]): Array<string> =>
  Array.isArray(value) ? value.map(String) : typeof value === "string" ? value.split(/\s+/).filter((t) => t !== "") : []

/** bluemonday's `RequireNoFollowOnLinks`, and `noopener` for links opening a new tab. */
const addLinkRelations = (properties: Properties): void => {
  if (typeof properties["href"] !== "string") return
  const rel = tokens(properties["rel"])
  if (!rel.join(" ").includes("nofollow")) rel.push("nofollow")
  if (properties["target"] === "_blank" && !rel.join(" ").includes("noopener")) rel.push("noopener")
  properties["rel"] = rel
}

const sanitizeChildren = (children: ReadonlyArray<RootContent>): Array<ElementContent> =>
  children.flatMap((child): Array<ElementContent> => {
    if (child.type === "text") return [child]
    if (child.type !== "element") return []
    return sanitizeElement(child)
  })

const sanitizeElement = (element: Element): Array<ElementContent> => {
  const tagName = element.tagName.toLowerCase()
  if (dropWithContent.has(tagName)) return []
  const rules = policy.get(tagName)
  const children = sanitizeChildren(element.children)
  if (rules === undefined) return children
  const properties = cleanProperties(element, tagName, rules)
  if (tagName === "a") addLinkRelations(properties)
  if (Object.keys(properties).length === 0 && !allowedWithoutAttributes.has(tagName)) return children
  return [{ type: "element", tagName, properties, children }]
}

export const sanitize = (tree: Root): Root => ({ type: "root", children: sanitizeChildren(tree.children) })
