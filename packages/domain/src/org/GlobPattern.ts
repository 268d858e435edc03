/**
 * The `GlobPattern` binding rule (webhook `branch_filter`): the pattern must compile with
 * gobwas/glob. Only the compiler's error paths are ported, with its literal texts, which Forgejo
 * reports as `[BranchFilter]: <text>`. [modules/validation/binding.go; gobwas/glob syntax/lexer,
 * syntax/ast/parser.go]
 */

type Token =
  | { readonly kind: "text"; readonly raw: string }
  | { readonly kind: "rangeOpen" | "rangeClose" | "not" | "between" | "other" }
  | { readonly kind: "rangeLo" | "rangeHi"; readonly raw: string }
  | { readonly kind: "error"; readonly message: string }

const inTextBreakers = ["?", "*", "[", "{"]
const inTermsBreakers = [...inTextBreakers, "}", ","]

/** The lexer's tokens up to the end or the first error (which ends the list). */
const lex = (pattern: string): ReadonlyArray<Token> => {
  const chars = [...pattern]
  const tokens: Array<Token> = []
  let pos = 0
  let termsLevel = 0

  const fetchText = (breakers: ReadonlyArray<string>) => {
    let data = ""
    let escaped = false
    while (pos < chars.length) {
      const c = chars[pos] ?? ""
      if (!escaped) {
        if (c === "\\") {
          escaped = true
          pos++
          continue
        }
        if (breakers.includes(c)) break
      }
      escaped = false
      data += c
      pos++
    }
    if (data !== "") tokens.push({ kind: "text", raw: data })
  }

  /** After `[`: false when the lexer failed. */
  const fetchRange = (): boolean => {
    let wantHi = false
    let wantClose = false
    let seenNot = false
    for (;;) {
      if (pos >= chars.length) {
        tokens.push({ kind: "error", message: "unexpected end of input" })
        return false
      }
      const c = chars[pos++] ?? ""
      if (wantClose) {
        if (c !== "]") {
          tokens.push({ kind: "error", message: "expected close range character" })
          return false
        }
        tokens.push({ kind: "rangeClose" })
        return true
      }
      if (wantHi) {
        tokens.push({ kind: "rangeHi", raw: c })
        wantClose = true
        continue
      }
      if (!seenNot && c === "!") {
        tokens.push({ kind: "not" })
        seenNot = true
        continue
      }
      if (chars[pos] === "-") {
        pos++
        tokens.push({ kind: "rangeLo", raw: c }, { kind: "between" })
        wantHi = true
        continue
      }
      pos--
      fetchText(["]"])
      wantClose = true
    }
  }

  while (pos < chars.length) {
    const c = chars[pos++] ?? ""
    if (c === "{") {
      termsLevel++
      tokens.push({ kind: "other" })
    } else if (c === "," && termsLevel > 0) {
      tokens.push({ kind: "other" })
    } else if (c === "}" && termsLevel > 0) {
      tokens.push({ kind: "other" })
      termsLevel--
    } else if (c === "[") {
      tokens.push({ kind: "rangeOpen" })
      if (!fetchRange()) return tokens
    } else if (c === "?" || c === "*") {
      tokens.push({ kind: "other" })
    } else {
      pos--
      fetchText(termsLevel > 0 ? inTermsBreakers : inTextBreakers)
    }
  }
  return tokens
}

/** The parser's verdict on one `[...]` range, `undefined` when it parses. */
const rangeError = (tokens: ReadonlyArray<Token>): string | undefined => {
  let lo = ""
  let hi = ""
  let chars = ""
  for (const token of tokens) {
    switch (token.kind) {
      case "rangeLo":
        lo = token.raw
        break
      case "rangeHi":
        hi = token.raw
        if ((hi.codePointAt(0) ?? 0) < (lo.codePointAt(0) ?? 0)) {
          return `hi character '${hi}' should be greater than lo '${lo}'`
        }
        break
      case "text":
        chars = token.raw
        break
      case "rangeClose": {
        const isRange = lo !== "" && hi !== ""
        return isRange === (chars !== "") ? "could not parse range" : undefined
      }
      default:
        break
    }
  }
  return undefined
}

/** Why gobwas/glob would not compile `pattern`, or `undefined` when it would. */
export const globPatternError = (pattern: string): string | undefined => {
  const tokens = lex(pattern)
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token === undefined) break
    if (token.kind === "error") return token.message
    if (token.kind !== "rangeOpen") continue
    // A range is lexed in one step, so its lexing error wins over what the parser would say of it.
    const close = tokens.findIndex((t, j) => j > i && (t.kind === "rangeClose" || t.kind === "error"))
    const closing = tokens[close]
    if (closing === undefined) return "unexpected end"
    if (closing.kind === "error") return closing.message
    const error = rangeError(tokens.slice(i + 1, close + 1))
    if (error !== undefined) return error
    i = close
  }
  return undefined
}
