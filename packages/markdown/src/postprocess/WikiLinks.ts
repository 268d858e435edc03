/**
 * `[[Page]]`, `[[Text|Page]]` and `[[image.png|alt=..|title=..]]` (Forgejo's `shortLinkProcessor`):
 * a page links under `<context>/wiki/` in a wiki and `<context>/src/` otherwise (spaces become
 * `-`); an image (by extension) becomes `<a><img src title alt></a>` under the media base
 * (`<context>/wiki/raw/` in a wiki; spaces become `+`).
 */
import type { Element } from "hast"
import { mediaLink, type RenderSettings, srcLink, wikiLink } from "../RenderSettings.ts"
import { isLink, urlJoin } from "../UrlJoin.ts"
import { splitAll, text, type TextProcessor } from "./TextProcessor.ts"

/**
 * Go's `\[\[(.*?)\]\](\w*)` (no line break inside), found by a linear scan: JavaScript's
 * backtracking makes the expression quadratic on many unclosed `[[`.
 */
interface ShortLinkMatch {
  readonly start: number
  readonly end: number
  readonly content: string
  readonly suffix: string
}

const findShortLink = (text: string): ShortLinkMatch | undefined => {
  // The first `]]` and the first line break at or after the current start + 2.
  let close = -1
  let newline = -1
  for (let start = text.indexOf("[["); start !== -1; start = text.indexOf("[[", start + 1)) {
    if (close < start + 2) close = text.indexOf("]]", start + 2)
    if (close === -1) return undefined
    if (newline < start + 2) {
      const at = text.indexOf("\n", start + 2)
      newline = at === -1 ? Number.POSITIVE_INFINITY : at
    }
    if (newline < close) continue
    const suffix = /^\w*/.exec(text.slice(close + 2))?.[0] ?? ""
    return { start, end: close + 2 + suffix.length, content: text.slice(start + 2, close), suffix }
  }
  return undefined
}

const imageExtensions = new Set([".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".gif", ".bmp", ".ico", ".svg"])

/** Go's `filepath.Ext`. */
const extension = (path: string): string => {
  for (let i = path.length - 1; i >= 0 && path[i] !== "/"; i--) if (path[i] === ".") return path.slice(i)
  return ""
}

/** Go's `path.Base`. */
const baseName = (path: string): string => {
  const trimmed = path.replace(/\/+$/, "")
  if (trimmed === "") return path === "" ? "." : "/"
  return trimmed.slice(trimmed.lastIndexOf("/") + 1)
}

/** Go's `url.PathEscape`: everything but unreserved characters and `$&+:=@` is percent-encoded. */
const pathEscape = (segment: string): string =>
  [...new TextEncoder().encode(segment)].map((byte) => {
    const char = String.fromCharCode(byte)
    return /[A-Za-z0-9\-_.~$&+:=@]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }).join("")

const unquote = (value: string): string => {
  if (value.length <= 1) return value
  const pairs: ReadonlyArray<readonly [string, string]> = [["\u201c", "\u201d"], ["\u2018", "\u2019"], ["\"", "\""], ["'", "'"], ["'", "\u2019"]]
  for (const [open, close] of pairs) {
    if (value.startsWith(open) && value.endsWith(close) && value.length >= open.length + close.length) {
      return value.slice(open.length, value.length - close.length)
    }
  }
  return value
}

/** GitHub's `[[text|link]]` wins; MediaWiki's `[[link|text]]` only when the first part is clearly a link. */
const parseProps = (content: string): ReadonlyMap<string, string> => {
  const props = new Map<string, string>()
  for (const part of content.split("|")) {
    const equals = part.indexOf("=")
    if (equals === -1) {
      if ((props.get("name") ?? "") === "") {
        if (isLink(part)) {
          if ((props.get("link") ?? "") !== "") props.set("name", props.get("link") ?? "")
          props.set("link", part.trim())
        } else {
          props.set("name", part)
        }
      } else {
        props.set("link", part.trim())
      }
    } else {
      props.set(part.slice(0, equals), unquote(part.slice(equals + 1)))
    }
  }
  return props
}

const shortLink = (content: string, suffix: string, settings: RenderSettings): Element => {
  const props = parseProps(content)
  const prop = (key: string): string => props.get(key) ?? ""
  let link = prop("link") !== "" ? prop("link") : prop("name")
  const name = (prop("title") !== "" ? prop("title") : prop("name") !== "" ? prop("name") : link) + suffix
  const image = imageExtensions.has(extension(link))
  const absolute = isLink(link)
  if (!absolute) {
    link = link.replaceAll(" ", image ? "+" : "-")
    if (!link.includes("/")) link = pathEscape(link)
  }
  if (image) {
    if (!absolute) link = urlJoin(mediaLink(settings), link)
    const title = prop("title") !== "" ? prop("title") : prop("alt") !== "" ? prop("alt") : baseName(name)
    return {
      type: "element",
      tagName: "a",
      properties: { href: link },
      children: [{ type: "element", tagName: "img", properties: { src: link, title, alt: prop("alt") }, children: [] }]
    }
  }
  if (!absolute) link = urlJoin(settings.wiki ? wikiLink(settings) : srcLink(settings), link)
  return { type: "element", tagName: "a", properties: { href: link }, children: [text(name)] }
}

export const wikiLinks = (settings: RenderSettings): TextProcessor => (value) =>
  value.includes("[[")
    ? splitAll(value, (input) => {
      const found = findShortLink(input)
      if (found === undefined) return undefined
      return { start: found.start, end: found.end, nodes: [shortLink(found.content, found.suffix, settings)] }
    })
    : undefined
