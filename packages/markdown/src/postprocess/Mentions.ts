/**
 * `@name` mentions (Forgejo's `mentionProcessor` and `references.mentionPattern`): linked to
 * `<ROOT_URL>name` with class `mention` only when the name is mentionable; others stay text.
 * Quantifiers are bounded (no account name is that long) so a long run cannot backtrack for ages.
 */
import { urlJoin } from "../UrlJoin.ts"
import { link, space, splitAll, type TextProcessor } from "./TextProcessor.ts"

const name = "[0-9a-zA-Z_-]"
const nameDot = "[0-9a-zA-Z_.-]"
const mentionPattern = new RegExp(
  `(?:${space}|^|\\(|\\[)(@${name}{1,255}|@${name}{1,255}\\/?${name}{1,255}|@${name}${nameDot}{1,255}\\/?${nameDot}{1,255}${name})` +
    `(?:'|${space}|[:,;.?!]${space}|[:,;.?!]?$|\\)|\\])`
)

/** The first mention in `text`: start and end of `@name`. */
export const findMention = (text: string): { readonly start: number; readonly end: number } | undefined => {
  const match = mentionPattern.exec(text)
  const mention = match?.[1]
  if (match === null || mention === undefined) return undefined
  const start = match.index + match[0].indexOf(mention)
  return { start, end: start + mention.length }
}

/** Every `@name` candidate a render could link, for one batched lookup before rendering. */
export const mentionCandidates = (markdown: string, limit = 1000): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const token of markdown.matchAll(/@([0-9a-zA-Z_.-]{1,255})/g)) {
    const raw = token[1] ?? ""
    // A mention ends before a `.` that ends a sentence, so every prefix ending at a dot counts.
    for (let i = raw.indexOf("."); i !== -1; i = raw.indexOf(".", i + 1)) if (i > 0) names.add(raw.slice(0, i))
    names.add(raw.replace(/\.+$/, ""))
    if (names.size >= limit) break
  }
  names.delete("")
  return [...names].slice(0, limit)
}

export const mentions = (rootUrl: string, mentionable: ReadonlySet<string>): TextProcessor => (value) =>
  splitAll(value, (text) => {
    let start = 0
    while (start < text.length) {
      const found = findMention(text.slice(start))
      if (found === undefined) return undefined
      const mention = text.slice(start + found.start, start + found.end)
      const username = mention.slice(1)
      if (!username.includes("/") && mentionable.has(username)) {
        return { start: start + found.start, end: start + found.end, nodes: [link(urlJoin(rootUrl, username), mention, "mention")] }
      }
      start += found.end
    }
    return undefined
  })
