/**
 * Bare `http(s)://` URLs become links (Forgejo's `linkProcessor` with xurls'
 * `StrictMatchingScheme("https?://")`; `www.` without a scheme is not linked). The URL ends at the
 * last character xurls accepts as a final one; `(...)`, `[...]` and `{...}` count when balanced.
 * A linear scan stands in for the regular expression, which backtracks badly in JavaScript.
 */
import { link, splitAll, type TextProcessor } from "./TextProcessor.ts"

const asciiMiddle = /[/?#\\a-zA-Z0-9\-._~%!$&'*+,;=:@]/
const asciiEnd = /[/#a-zA-Z0-9\-_~%$&+=]/
const punctuation = /\p{P}/u
const whitespace = /\s/u

/** xurls' allowedUcsChar and the private-use ranges, approximately. */
const unicodeMiddle = (char: string): boolean => {
  const code = char.codePointAt(0) ?? 0
  if (code < 0xa1 || whitespace.test(char)) return false
  if ((code >= 0xd800 && code <= 0xdfff) || (code >= 0xfdd0 && code <= 0xfdef) || code >= 0xfff0 && code <= 0xffff) return false
  return true
}

const isMiddle = (char: string): boolean => (char.length === 1 && char.charCodeAt(0) < 0x80 ? asciiMiddle.test(char) : unicodeMiddle(char))
const isEnd = (char: string): boolean =>
  char.length === 1 && char.charCodeAt(0) < 0x80 ? asciiEnd.test(char) : unicodeMiddle(char) && !punctuation.test(char)

const closing: Readonly<Record<string, string>> = { "(": ")", "[": "]", "{": "}" }

/** The end of a balanced group opening at `start` (one nested level, middle characters inside), or -1. */
const balancedEnd = (text: string, start: number): number => {
  const open = text[start] ?? ""
  const close = closing[open] ?? ""
  let i = start + 1
  while (i < text.length) {
    const char = String.fromCodePoint(text.codePointAt(i) ?? 0)
    if (char === close) return i + 1
    if (char === open) {
      let j = i + 1
      while (j < text.length && text[j] !== close && isMiddle(String.fromCodePoint(text.codePointAt(j) ?? 0))) j += (text.codePointAt(j) ?? 0) > 0xffff ? 2 : 1
      if (text[j] !== close) return -1
      i = j + 1
      continue
    }
    if (!isMiddle(char)) return -1
    i += char.length
  }
  return -1
}

/** The length of the longest URL path continuation at `start`. */
const continuation = (text: string, start: number): number => {
  let i = start
  let lastEnd = start
  while (i < text.length) {
    const char = String.fromCodePoint(text.codePointAt(i) ?? 0)
    if (char in closing) {
      const end = balancedEnd(text, i)
      if (end === -1) break
      i = end
      lastEnd = end
      continue
    }
    if (!isMiddle(char)) break
    i += char.length
    if (isEnd(char)) lastEnd = i
  }
  return lastEnd - start
}

const scheme = /https?:\/\//i

export const findUrl = (text: string): { readonly start: number; readonly end: number } | undefined => {
  let offset = 0
  while (offset < text.length) {
    const match = scheme.exec(text.slice(offset))
    if (match === null) return undefined
    const start = offset + match.index
    const length = continuation(text, start + match[0].length)
    if (length > 0) return { start, end: start + match[0].length + length }
    offset = start + match[0].length
  }
  return undefined
}

export const autolinks: TextProcessor = (value) =>
  splitAll(value, (text) => {
    const found = findUrl(text)
    if (found === undefined) return undefined
    const url = text.slice(found.start, found.end)
    return { ...found, nodes: [link(url, url, "link")] }
  })
