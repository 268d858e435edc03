/**
 * The error Go's `json.Decoder.Decode` reports for a body that is not JSON, which Forgejo's binding
 * answers as `[]: <error>` (422). Written from the behaviour of Go's encoding/json scanner:
 * - the first byte no JSON text can continue with: `invalid character 'x' <where>`;
 * - input that ends inside a value: `unexpected EOF`;
 * - Decode reads one value and stops, so anything after a complete value is not looked at;
 * - nesting past Go's limit of 10000: `invalid character '[' exceeded max depth`.
 * The scanner reads bytes, so the text is scanned as UTF-8 bytes, as Go sees it: one step per byte,
 * and a stack no deeper than Go's limit, so any body costs time linear in its size.
 */

/** Go's `maxNestingDepth`. */
const MAX_NESTING_DEPTH = 10_000

/** The bytes that may follow a backslash in a string (besides `u`). */
const SIMPLE_ESCAPES = new Set([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22])

/** Go's `quoteChar`: the byte as a quoted Go rune literal. */
const quoteByte = (c: number): string => {
  if (c === 0x27) return `'\\''`
  if (c === 0x22) return `'"'`
  const escapes: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 0x5c: "\\\\" }
  const escaped = escapes[c]
  if (escaped !== undefined) return `'${escaped}'`
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`
  // A byte above 0x7f is the rune of the same number; the non-printable ones are escaped.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u${c.toString(16).padStart(4, "0")}'`
  return `'${String.fromCharCode(c)}'`
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
const isDigit = (c: number) => c >= 0x30 && c <= 0x39
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)

type Container = "objectKey" | "objectValue" | "array"

class GoSyntaxError {
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

const invalid = (c: number, where: string) => new GoSyntaxError(`invalid character ${quoteByte(c)} ${where}`)

/** `undefined` when Decode would read a value from `text` (an empty body included: Go reports io.EOF, which the binding ignores). */
export const goJsonSyntaxError = (text: string): string | undefined => {
  const bytes = new TextEncoder().encode(text)
  const stack: Array<Container> = []
  type State = (c: number) => State | "end"
  let sawValue = false

  const push = (c: number, container: Container) => {
    stack.push(container)
    if (stack.length > MAX_NESTING_DEPTH) throw invalid(c, "exceeded max depth")
  }

  const literal = (rest: string, name: string, index = 0): State => (c) => {
    const expected = rest.charCodeAt(index)
    if (c !== expected) throw invalid(c, `in literal ${name} (expecting ${quoteByte(expected)})`)
    return index + 1 === rest.length ? endValue : literal(rest, name, index + 1)
  }

  const beginValue: State = (c) => {
    if (isSpace(c)) return beginValue
    sawValue = true
    switch (c) {
      case 0x7b:
        push(c, "objectKey")
        return beginStringOrEmpty
      case 0x5b:
        push(c, "array")
        return beginValueOrEmpty
      case 0x22:
        return inString
      case 0x2d:
        return negative
      case 0x30:
        return zero
      case 0x74:
        return literal("rue", "true")
      case 0x66:
        return literal("alse", "false")
      case 0x6e:
        return literal("ull", "null")
    }
    if (isDigit(c)) return digits
    throw invalid(c, "looking for beginning of value")
  }
  const beginValueOrEmpty: State = (c) => {
    if (isSpace(c)) return beginValueOrEmpty
    return c === 0x5d ? endValue(c) : beginValue(c)
  }
  const beginStringOrEmpty: State = (c) => {
    if (isSpace(c)) return beginStringOrEmpty
    if (c === 0x7d) {
      stack[stack.length - 1] = "objectValue"
      return endValue(c)
    }
    return beginString(c)
  }
  const beginString: State = (c) => {
    if (isSpace(c)) return beginString
    if (c === 0x22) return inString
    throw invalid(c, "looking for beginning of object key string")
  }
  const endValue: State = (c) => {
    const top = stack[stack.length - 1]
    // The top-level value is complete: Decode stops here.
    if (top === undefined) return "end"
    if (isSpace(c)) return endValue
    switch (top) {
      case "objectKey":
        if (c === 0x3a) {
          stack[stack.length - 1] = "objectValue"
          return beginValue
        }
        throw invalid(c, "after object key")
      case "objectValue":
        if (c === 0x2c) {
          stack[stack.length - 1] = "objectKey"
          return beginString
        }
        if (c === 0x7d) return closeContainer
        throw invalid(c, "after object key:value pair")
      case "array":
        if (c === 0x2c) return beginValue
        if (c === 0x5d) return closeContainer
        throw invalid(c, "after array element")
    }
  }
  /** A closing bracket was read: pop, and end at once if that closed the top-level value. */
  const closeContainer: State = (c) => endValue(c)
  const inString: State = (c) => {
    if (c === 0x22) return endValue
    if (c === 0x5c) return inStringEscape
    if (c < 0x20) throw invalid(c, "in string literal")
    return inString
  }
  const inStringEscape: State = (c) => {
    if (SIMPLE_ESCAPES.has(c)) return inString
    if (c === 0x75) return unicodeEscape(0)
    throw invalid(c, "in string escape code")
  }
  const unicodeEscape = (read: number): State => (c) => {
    if (!isHex(c)) throw invalid(c, "in \\u hexadecimal character escape")
    return read === 3 ? inString : unicodeEscape(read + 1)
  }
  const negative: State = (c) => {
    if (c === 0x30) return zero
    if (isDigit(c)) return digits
    throw invalid(c, "in numeric literal")
  }
  const digits: State = (c) => isDigit(c) ? digits : zero(c)
  const zero: State = (c) => {
    if (c === 0x2e) return dot
    if (c === 0x65 || c === 0x45) return exponent
    return endValue(c)
  }
  const dot: State = (c) => {
    if (isDigit(c)) return fraction
    throw invalid(c, "after decimal point in numeric literal")
  }
  const fraction: State = (c) => {
    if (isDigit(c)) return fraction
    if (c === 0x65 || c === 0x45) return exponent
    return endValue(c)
  }
  const exponent: State = (c) => c === 0x2b || c === 0x2d ? exponentSign : exponentSign(c)
  const exponentSign: State = (c) => {
    if (isDigit(c)) return exponentDigits
    throw invalid(c, "in exponent of numeric literal")
  }
  const exponentDigits: State = (c) => isDigit(c) ? exponentDigits : endValue(c)

  let state: State = beginValue
  try {
    for (const c of bytes) {
      // A closing bracket pops its container before the next byte is looked at.
      if (state === closeContainer) stack.pop()
      if (state === closeContainer && stack.length === 0) return undefined
      const next = state(c)
      if (next === "end") return undefined
      state = next
    }
    if (state === closeContainer) stack.pop()
    if (stack.length === 0 && (state === closeContainer || state === endValue)) return undefined
    // At the end of input Go feeds one space: a number at the top level completes with it.
    if (stack.length === 0 && [digits, zero, fraction, exponentDigits].includes(state)) return undefined
    return sawValue ? "unexpected EOF" : undefined
  } catch (error) {
    if (error instanceof GoSyntaxError) return error.message
    throw error
  }
}
