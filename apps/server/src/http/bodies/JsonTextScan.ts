/**
 * A JSON text checked before anything parses it, in one pass over its characters and without
 * recursion: nesting deeper than MAX_JSON_DEPTH, or a string or key that PostgreSQL's `text` cannot
 * hold (a `\u0000` escape, a surrogate without its pair). A problem is reported
 * with the top-level key it sits under, when there is one. Text that is not JSON is the decoder's
 * to report: the scan neither validates it nor fails on it.
 */

/** Forgejo's options nest two or three levels; nothing legitimate comes near this. */
export const MAX_JSON_DEPTH = 32

export type JsonTextProblem =
  | { readonly _tag: "TooDeep" }
  | { readonly _tag: "Unstorable"; readonly topLevelKey: string | undefined }

const QUOTE = 0x22
const BACKSLASH = 0x5c

const hexDigit = (c: number): number =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1

/** The code unit of the four hex digits at `at`, or -1. */
const hex4 = (text: string, at: number): number => {
  let unit = 0
  for (let index = at; index < at + 4; index++) {
    const digit = hexDigit(text.charCodeAt(index))
    if (digit < 0) return -1
    unit = unit * 16 + digit
  }
  return unit
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/** Within a string: its end, an escape, or a code unit that cannot be stored as it is. */
const STRING_SPECIAL = /["\\\u0000\ud800-\udfff]/g
/** Outside strings: what changes the nesting or starts a string. */
const STRUCTURAL = /["{}[\],:]/g

/** Scans the string whose opening quote is at `start`: where it ends (its closing quote, or the text's end) and whether it is storable. */
const scanString = (text: string, start: number): { readonly end: number; readonly storable: boolean } => {
  let storable = true
  let index = start + 1
  // The regular expression skips ordinary text natively: a long string costs one search.
  for (;;) {
    STRING_SPECIAL.lastIndex = index
    if (STRING_SPECIAL.exec(text) === null) return { end: text.length, storable }
    index = STRING_SPECIAL.lastIndex - 1
    const c = text.charCodeAt(index)
    if (c === QUOTE) return { end: index, storable }
    if (c === BACKSLASH) {
      if (text.charCodeAt(index + 1) !== 0x75) {
        index += 2
        continue
      }
      const unit = hex4(text, index + 2)
      if (unit === 0 || isLow(unit)) storable = false
      if (isHigh(unit)) {
        const pair = text.charCodeAt(index + 6) === BACKSLASH && text.charCodeAt(index + 7) === 0x75 ? hex4(text, index + 8) : -1
        if (!isLow(pair)) storable = false
        else index += 6
      }
      index += 6
      continue
    }
    // A NUL, or a raw surrogate, storable only as the first half of a pair.
    if (c === 0 || isLow(c) || !isLow(text.charCodeAt(index + 1))) storable = false
    else index++
    index++
  }
}

const keyOf = (literal: string): string | undefined => {
  try {
    const key: unknown = JSON.parse(literal)
    return typeof key === "string" ? key : undefined
  } catch {
    return undefined
  }
}

export const jsonTextProblem = (text: string): JsonTextProblem | undefined => {
  let depth = 0
  // Whether the top-level value is an object, whether its next string is a key, and the current key.
  let topIsObject = false
  let keyNext = false
  let topLevelKey: string | undefined
  let index = 0
  for (;;) {
    STRUCTURAL.lastIndex = index
    if (STRUCTURAL.exec(text) === null) return undefined
    index = STRUCTURAL.lastIndex - 1
    const c = text.charCodeAt(index)
    if (c === QUOTE) {
      const { end, storable } = scanString(text, index)
      const isTopLevelKey = depth === 1 && topIsObject && keyNext
      if (isTopLevelKey) {
        keyNext = false
        // Only a storable key can name the field; the text of a bad one is never repeated.
        topLevelKey = storable && end < text.length ? keyOf(text.slice(index, end + 1)) : undefined
      }
      if (!storable) return { _tag: "Unstorable", topLevelKey: isTopLevelKey || depth === 0 ? undefined : topLevelKey }
      index = end + 1
      continue
    }
    if (c === 0x7b || c === 0x5b) {
      depth++
      if (depth > MAX_JSON_DEPTH) return { _tag: "TooDeep" }
      if (depth === 1) {
        topIsObject = c === 0x7b
        keyNext = topIsObject
        topLevelKey = undefined
      }
    } else if (c === 0x7d || c === 0x5d) {
      if (depth > 0) depth--
    } else if (depth === 1 && topIsObject) {
      if (c === 0x2c) keyNext = true
      else if (c === 0x3a) keyNext = false
    }
    index++
  }
}
