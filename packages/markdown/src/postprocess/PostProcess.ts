/**
 * Forgejo's post-processing pass (`markup.PostProcess`) over the rendered tree, for `gfm` and
 * `comment`. Text outside `code` and `pre` runs through the processors in Forgejo's order; the
 * first that matches splits the text, later processors see only the text before its first match,
 * and the remaining pieces are processed afresh, exactly as Go walks the siblings it inserts.
 * Link text only gets emoji; ids and `#anchor` links get the `user-content-` prefix; relative
 * raw-HTML images join the media base.
 */
import type { Element, ElementContent, Root } from "hast"
import { mediaLink, type RenderSettings } from "../RenderSettings.ts"
import { isLink, urlJoin } from "../UrlJoin.ts"
import { autolinks } from "./Autolinks.ts"
import { commitUrls, compareUrls } from "./CommitLinks.ts"
import { emailLinks } from "./EmailLinks.ts"
import { emojiShortCodes, unicodeEmoji } from "./Emoji.ts"
import { commitCrossReferences, fullIssueLinks, issueReferences } from "./IssueReferences.ts"
import { mentions } from "./Mentions.ts"
import { text, type TextProcessor } from "./TextProcessor.ts"
import { wikiLinks } from "./WikiLinks.ts"

interface Processors {
  readonly all: ReadonlyArray<TextProcessor>
  readonly emoji: ReadonlyArray<TextProcessor>
}

const processorsFor = (settings: RenderSettings): Processors => {
  const emoji = [unicodeEmoji, emojiShortCodes(settings.staticPrefix)]
  const crossLinkOnly = settings.kind === "document" && !settings.wiki
  return {
    emoji,
    all: [
      fullIssueLinks(settings.rootUrl, settings.repository),
      compareUrls,
      commitUrls,
      wikiLinks(settings),
      autolinks,
      mentions(settings.rootUrl, settings.mentionable),
      issueReferences(settings.rootUrl, settings.repository, crossLinkOnly),
      commitCrossReferences(settings.rootUrl),
      emailLinks,
      ...emoji
    ]
  }
}

const userContent = "user-content-"
const footnoteId = /[^:]*:user-content-/

const hasPrefix = (value: string): boolean => value.startsWith(userContent) || footnoteId.test(value)

const classIs = (element: Element, name: string): boolean => {
  const value = element.properties["className"]
  return Array.isArray(value) && value.length === 1 && value[0] === name
}

const fixAttributes = (element: Element, settings: RenderSettings): void => {
  const { id, href, src } = element.properties
  if (typeof id === "string" && !hasPrefix(id)) element.properties["id"] = userContent + id
  if (typeof href === "string" && href.startsWith("#") && !hasPrefix(href.slice(1))) {
    element.properties["href"] = `#${userContent}${href.slice(1)}`
  }
  if (element.tagName === "img" && typeof src === "string" && src !== "" && !isLink(src) && !src.startsWith("data:image/")) {
    element.properties["src"] = urlJoin(mediaLink(settings), src)
  }
}

export const postProcess = (tree: Root, settings: RenderSettings): void => {
  const processors = processorsFor(settings)

  const processText = (value: string, procs: ReadonlyArray<TextProcessor>): Array<ElementContent> => {
    let head = value
    let tail: Array<ElementContent> = []
    for (const processor of procs) {
      if (head === "") break
      const split = processor(head)
      if (split === undefined) continue
      head = split.head
      tail = [...split.rest, ...tail]
    }
    const out: Array<ElementContent> = head === "" ? [] : [text(head)]
    for (const node of tail) {
      if (node.type === "text") out.push(...processText(node.value, procs))
      else {
        if (node.type === "element") visitElement(node, procs)
        out.push(node)
      }
    }
    return out
  }

  const visitChildren = (parent: Root | Element, procs: ReadonlyArray<TextProcessor>): void => {
    if (!parent.children.some((child) => child.type === "text" || child.type === "element")) return
    const children: Array<ElementContent> = []
    for (const child of parent.children) {
      if (child.type === "text") children.push(...(procs.length === 0 ? [child] : processText(child.value, procs)))
      else if (child.type === "element") {
        visitElement(child, procs)
        children.push(child)
      } else if (child.type !== "doctype") children.push(child)
    }
    parent.children = children
  }

  const visitElement = (element: Element, inherited: ReadonlyArray<TextProcessor>): void => {
    fixAttributes(element, settings)
    let procs = classIs(element, "emoji") ? [] : inherited
    if (element.tagName === "a") procs = processors.emoji
    if (element.tagName === "code" || element.tagName === "pre") return
    visitChildren(element, procs)
  }

  visitChildren(tree, processors.all)
}
