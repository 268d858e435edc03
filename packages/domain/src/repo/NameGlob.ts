/**
 * gobwas/glob matching without separators, as Forgejo filters unadopted repositories by
 * `owner/name` patterns: `*` any run of characters, `?` one character, `[abc]`, `[a-z]`, `[!...]`,
 * `{a,b}` alternatives (nested), `\` escapes the next character. [services/repository/adopt.go]
 */
import { globPatternError } from "../org/GlobPattern.ts"

/** Escapes what is syntax outside a class (the only escapes the `u` flag allows there). */
const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")
/** Escapes what is syntax inside a class. */
const escapeClassMember = (text: string): string => text.replace(/[\\\]^-]/g, "\\$&")

const toRegExpSource = (pattern: string): string => {
  const chars = [...pattern]
  let out = ""
  let depth = 0
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? ""
    if (c === "\\") {
      out += escapeRegExp(chars[++i] ?? "")
    } else if (c === "*") {
      out += "[^]*"
    } else if (c === "?") {
      out += "[^]"
    } else if (c === "[") {
      const close = chars.indexOf("]", i + 1)
      const body = chars.slice(i + 1, close)
      const negated = body[0] === "!"
      const members = (negated ? body.slice(1) : body).map((member, index, all) => (member === "-" && index > 0 && index < all.length - 1 ? "-" : escapeClassMember(member))).join("")
      out += negated ? `[^${members}]` : `[${members}]`
      i = close
    } else if (c === "{") {
      depth++
      out += "(?:"
    } else if (c === "," && depth > 0) {
      out += "|"
    } else if (c === "}" && depth > 0) {
      depth--
      out += ")"
    } else {
      out += escapeRegExp(c)
    }
  }
  return out + ")".repeat(depth)
}

/**
 * A matcher for `pattern`. A pattern gobwas would not compile is skipped (matches everything), as
 * Forgejo logs and skips it.
 */
export const nameGlob = (pattern: string): (name: string) => boolean => {
  const matchAll = () => true
  if (globPatternError(pattern) !== undefined) return matchAll
  try {
    const regExp = new RegExp(`^(?:${toRegExpSource(pattern)})$`, "u")
    return (name) => regExp.test(name)
  } catch {
    // A construct gobwas accepts that the translation cannot express: skipped like an invalid one.
    return matchAll
  }
}
