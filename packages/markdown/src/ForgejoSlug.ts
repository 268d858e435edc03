/**
 * Forgejo's element ids: `common.CleanValue` (letters, numbers and `_` kept and lower-cased, any
 * run of other characters becomes one dash between words) and goldmark's id table with
 * Forgejo's `user-content-` prefix, where a repeated id gets `-1`, `-2`, ...
 */

const keep = /[\p{L}\p{N}_]/u

export const cleanValue = (value: string): string => {
  let result = ""
  let needsDash = false
  for (const char of value.trim()) {
    if (keep.test(char)) {
      if (needsDash && result.length > 0) result += "-"
      needsDash = false
      // Go lower-cases rune by rune; keep one code point where JavaScript would expand.
      result += String.fromCodePoint(char.toLowerCase().codePointAt(0) ?? 0)
    } else {
      needsDash = true
    }
  }
  return result
}

export interface IdTable {
  /** An unused id for `value`, `fallback` when the value has no letters or numbers. */
  readonly generate: (value: string, fallback: string) => string
}

const prefix = "user-content-"

export const makeIdTable = (): IdTable => {
  const used = new Set<string>()
  return {
    generate: (value, fallback) => {
      const cleaned = cleanValue(value)
      const base = (cleaned === "" ? fallback : cleaned)
      const id = base.startsWith(prefix) ? base : prefix + base
      if (!used.has(id)) {
        used.add(id)
        return id
      }
      for (let i = 1; ; i++) {
        const candidate = `${id}-${i}`
        if (!used.has(candidate)) {
          used.add(candidate)
          return candidate
        }
      }
    }
  }
}
