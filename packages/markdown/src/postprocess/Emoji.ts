/**
 * Emoji as Forgejo renders them (`emojiProcessor`, `emojiShortCodeProcessor`): a unicode emoji or a
 * known `:alias:` becomes `<span class="emoji" aria-label="DESCRIPTION" data-alias="ALIAS">EMOJI</span>`,
 * and Forgejo's custom emoji (`:forgejo:`, `:gitea:`, ...) an image under `/assets/img/emoji/`.
 * The data is gemoji, the set Forgejo's table is generated from; the longest emoji wins.
 */
import { gemoji } from "gemoji"
import type { Element } from "hast"
import { splitAll, text, type TextProcessor } from "./TextProcessor.ts"

interface Emoji {
  readonly emoji: string
  readonly description: string
  readonly alias: string
}

/** Forgejo's default `[ui] CUSTOM_EMOJIS`. */
const customEmoji = new Set(["git", "gitea", "codeberg", "gitlab", "github", "gogs", "forgejo"])

const byAlias = new Map<string, Emoji>()
/** Emoji by their first code point, longest first, for a linear scan. */
const byFirstCodePoint = new Map<number, Array<Emoji>>()

for (const entry of gemoji) {
  const alias = entry.names[0]
  if (alias === undefined || entry.emoji === "") continue
  const emoji: Emoji = { emoji: entry.emoji, description: entry.description, alias }
  for (const name of entry.names) if (!byAlias.has(name)) byAlias.set(name, emoji)
  const first = entry.emoji.codePointAt(0) ?? 0
  const list = byFirstCodePoint.get(first) ?? []
  list.push(emoji)
  byFirstCodePoint.set(first, list)
}
for (const list of byFirstCodePoint.values()) list.sort((a, b) => b.emoji.length - a.emoji.length)

const emojiSpan = (content: string, description: string, alias: string): Element => ({
  type: "element",
  tagName: "span",
  properties: { className: ["emoji"], ariaLabel: description, dataAlias: alias },
  children: [text(content)]
})

const customEmojiSpan = (alias: string, staticPrefix: string): Element => ({
  type: "element",
  tagName: "span",
  properties: { className: ["emoji"], ariaLabel: alias, dataAlias: alias },
  children: [{
    type: "element",
    tagName: "img",
    properties: { alt: `:${alias}:`, src: `${staticPrefix}/assets/img/emoji/${alias}.png` },
    children: []
  }]
})

const findEmoji = (value: string): { readonly start: number; readonly emoji: Emoji } | undefined => {
  for (let i = 0; i < value.length;) {
    const code = value.codePointAt(i) ?? 0
    const candidates = byFirstCodePoint.get(code)
    if (candidates !== undefined) {
      for (const emoji of candidates) if (value.startsWith(emoji.emoji, i)) return { start: i, emoji }
    }
    i += code > 0xffff ? 2 : 1
  }
  return undefined
}

const hasEmojiCandidate = /[^\u0000-\u007f]|[#*0-9]\ufe0f?\u20e3/

export const unicodeEmoji: TextProcessor = (value) =>
  hasEmojiCandidate.test(value)
    ? splitAll(value, (input) => {
      const found = findEmoji(input)
      if (found === undefined) return undefined
      const { emoji, start } = found
      return { start, end: start + emoji.emoji.length, nodes: [emojiSpan(emoji.emoji, emoji.description, emoji.alias)] }
    })
    : undefined

const shortCode = /:[-+\w]+:/

export const emojiShortCodes = (staticPrefix: string): TextProcessor => (value) =>
  value.includes(":")
    ? splitAll(value, (input) => {
      let start = 0
      while (start < input.length) {
        const match = shortCode.exec(input.slice(start))
        if (match === null) return undefined
        const at = start + match.index
        const end = at + match[0].length
        const alias = match[0].replaceAll(":", "")
        const emoji = byAlias.get(alias)
        if (emoji !== undefined) return { start: at, end, nodes: [emojiSpan(emoji.emoji, emoji.description, alias)] }
        if (customEmoji.has(alias)) return { start: at, end, nodes: [customEmojiSpan(alias, staticPrefix)] }
        start = end
      }
      return undefined
    })
    : undefined
