/**
 * Emoji as Forgejo renders them (`emojiProcessor`, `emojiShortCodeProcessor`): a unicode emoji or a
 * known `:alias:` becomes `<span class="emoji" aria-label="DESCRIPTION" data-alias="ALIAS">EMOJI</span>`,
 * and Forgejo's custom emoji (`:forgejo:`, `:gitea:`, ...) an image under `/assets/img/emoji/`.
 * The data is Forgejo's own table (skin tones, ZWJ sequences and variation selectors included);
 * like Go's `strings.Replacer` over it, the leftmost emoji wins, and the longest one there.
 */
import type { Element } from "hast"
import { emojiData } from "./EmojiData.ts"
import { splitAll, text, type TextProcessor } from "./TextProcessor.ts"

interface Emoji {
  readonly emoji: string
  readonly description: string
  readonly alias: string
}

/** Forgejo's default `[ui] CUSTOM_EMOJIS`. */
const customEmoji = new Set(["git", "gitea", "codeberg", "gitlab", "github", "gogs", "forgejo"])

const byAlias = new Map<string, Emoji>()
/** Emoji by their first code point, longest first. */
const byFirstCodePoint = new Map<number, Array<Emoji>>()

for (const [emoji, description, aliases] of emojiData) {
  const names = aliases.split(" ")
  const entry: Emoji = { emoji, description, alias: names[0] ?? "" }
  for (const name of names) byAlias.set(name, entry)
  const first = emoji.codePointAt(0) ?? 0
  const list = byFirstCodePoint.get(first) ?? []
  list.push(entry)
  byFirstCodePoint.set(first, list)
}
for (const list of byFirstCodePoint.values()) list.sort((a, b) => b.emoji.length - a.emoji.length)

const classEscape = (codePoint: number): string => `\\u{${codePoint.toString(16)}}`

/** Where an emoji may start: any first code point of the table, found without walking the text by hand. */
const emojiStart = new RegExp(`[${[...byFirstCodePoint.keys()].map(classEscape).join("")}]`, "gu")

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
  emojiStart.lastIndex = 0
  for (let match = emojiStart.exec(value); match !== null; match = emojiStart.exec(value)) {
    const candidates = byFirstCodePoint.get(match[0].codePointAt(0) ?? 0) ?? []
    for (const emoji of candidates) if (value.startsWith(emoji.emoji, match.index)) return { start: match.index, emoji }
  }
  return undefined
}

/** Every emoji starts with a non-ASCII code point or a keycap's `#`, `*` or digit. */
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
