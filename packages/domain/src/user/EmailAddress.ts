/**
 * E-mail addresses as Forgejo checks them for administrators (`ValidateEmailForAdmin`: no domain
 * allow/block list), and the placeholder shown for hidden addresses.
 *
 * The rule: non-empty, and Go's `net/mail.ParseAddress` accepts it with an empty display name. That
 * parser is reproduced here as far as it decides acceptance: dot-atom or quoted local part, dot-atom
 * or IP domain-literal, an optional `<...>` angle-addr, parenthesised comments, single-address groups
 * (`g: a@b;`), and RFC 2047 words (a display name that decodes to "" counts as none). CR/LF are never
 * accepted. Forgejo stores the input as given (`" a@b"` passes and keeps its space).
 *
 * - **binding** (`Required;EmailForAdmin;MaxSize(254)` on admin user creation): 422
 *   `[Email]: Required` / `[Email]: e-mail invalid [email: <input>]` / `[Email]: MaxSize`.
 * - **model level** (admin edit, whose body binds only `MaxSize(254)`): 400 `e-mail invalid [email: <input>]`.
 *
 * [modules/validation/email.go, modules/structs/admin_user.go, Go net/mail, mime.WordDecoder]
 */
import { Effect, Result, Schema } from "effect"
import { Base64 } from "effect/encoding"
import { Invalid } from "../errors.ts"

export const EMAIL_MAX_LENGTH = 254

interface MailAddress {
  readonly name: string
  readonly address: string
}

const isSurrogate = (r: string): boolean => {
  const code = r.codePointAt(0) ?? 0
  return code >= 0xd800 && code <= 0xdfff
}
const isVchar = (r: string): boolean => {
  const code = r.codePointAt(0) ?? 0
  return (code >= 0x21 && code <= 0x7e) || code >= 0x80
}
const isWsp = (r: string): boolean => r === " " || r === "\t"
const isAtext = (r: string, dot: boolean): boolean =>
  r === "." ? dot : "()<>[]:;@\\,\"".includes(r) ? false : isVchar(r)
const isQtext = (r: string): boolean => r !== "\\" && r !== "\"" && isVchar(r)
const isDtext = (r: string): boolean => r !== "[" && r !== "]" && r !== "\\" && isVchar(r)

// netip.ParseAddr, as much as `net.ParseIP(..).To4()` and `len(net.ParseIP(..)) == 16` need.
const ipv4Field = /^(0|[1-9][0-9]{0,2})$/
const isIPv4 = (text: string): boolean => {
  const fields = text.split(".")
  return fields.length === 4 && fields.every((field) => ipv4Field.test(field) && Number(field) <= 255)
}
const ipv6Group = /^[0-9A-Fa-f]{1,4}$/
/** The 16 bytes of an IPv6 address as 8 groups, or undefined when Go would not parse it. */
const ipv6Groups = (text: string): ReadonlyArray<number> | undefined => {
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const groupsOf = (part: string, last: boolean): Array<number> | undefined => {
    if (part === "") return []
    const items = part.split(":")
    const groups: Array<number> = []
    for (const [index, item] of items.entries()) {
      if (last && index === items.length - 1 && item.includes(".")) {
        if (!isIPv4(item)) return undefined
        const [a = 0, b = 0, c = 0, d = 0] = item.split(".").map(Number)
        groups.push((a << 8) | b, (c << 8) | d)
      } else if (ipv6Group.test(item)) {
        groups.push(parseInt(item, 16))
      } else {
        return undefined
      }
    }
    return groups
  }
  const [head = "", tail] = halves
  if (tail === undefined) {
    const groups = groupsOf(head, true)
    return groups !== undefined && groups.length === 8 ? groups : undefined
  }
  const front = groupsOf(head, false)
  const back = groupsOf(tail, true)
  if (front === undefined || back === undefined || front.length + back.length > 7) return undefined
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back]
}
const isIPv4Mapped = (groups: ReadonlyArray<number>): boolean =>
  groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff

/** `mime.WordDecoder.Decode` without extra charsets: decoded text, `undefined` if not an encoded-word, or a charset error. */
const decodeEncodedWord = (word: string): string | undefined | "charset-error" => {
  if (!word.startsWith("=?") || !word.endsWith("?=") || word.length < 4) return undefined
  const parts = word.slice(2, -2).split("?")
  if (parts.length !== 3) return undefined
  const [charset = "", encoding = "", text = ""] = parts
  if (charset === "" || encoding.length !== 1) return undefined
  let bytes: ReadonlyArray<number>
  if (encoding === "B" || encoding === "b") {
    const decoded = Base64.decode(text)
    if (Result.isFailure(decoded)) return undefined
    bytes = [...decoded.success]
  } else if (encoding === "Q" || encoding === "q") {
    const decoded = qDecode(text)
    if (decoded === undefined) return undefined
    bytes = decoded
  } else {
    return undefined
  }
  const lower = charset.toLowerCase()
  if (lower !== "utf-8" && lower !== "iso-8859-1" && lower !== "us-ascii") return "charset-error"
  // Only whether the name is empty matters to the caller, so bytes map to code units one to one.
  return String.fromCharCode(...bytes)
}
const qDecode = (text: string): Array<number> | undefined => {
  const bytes: Array<number> = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (text[i] === "_") bytes.push(0x20)
    else if (text[i] === "=") {
      const hex = text.slice(i + 1, i + 3)
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined
      bytes.push(parseInt(hex, 16))
      i += 2
    } else if ((c >= 0x20 && c <= 0x7e) || c === 0x0a || c === 0x0d || c === 0x09) bytes.push(c)
    else return undefined
  }
  return bytes
}

/** Go's `mail.ParseAddress`: the address and display name, or `undefined` where Go returns an error. */
export const parseMailAddress = (input: string): MailAddress | undefined => {
  const cs = Array.from(input)
  let i = 0
  const empty = (): boolean => i >= cs.length
  const at = (c: string): boolean => !empty() && cs[i] === c
  const consume = (c: string): boolean => {
    if (!at(c)) return false
    i++
    return true
  }
  const skipSpace = (): void => {
    while (!empty() && isWsp(cs[i] ?? "")) i++
  }
  const consumeComment = (): string | undefined => {
    let depth = 1
    let comment = ""
    while (!empty() && depth > 0) {
      if (cs[i] === "\\" && cs.length - i > 1) i++
      else if (cs[i] === "(") depth++
      else if (cs[i] === ")") depth--
      if (depth > 0) comment += cs[i]
      i++
    }
    return depth === 0 ? comment : undefined
  }
  const skipCFWS = (): boolean => {
    skipSpace()
    while (consume("(")) {
      if (consumeComment() === undefined) return false
      skipSpace()
    }
    return true
  }
  const consumeAtom = (dot: boolean, permissive: boolean): string | undefined => {
    let j = i
    while (j < cs.length && isAtext(cs[j] ?? "", dot)) {
      if (isSurrogate(cs[j] ?? "")) return undefined
      j++
    }
    if (j === i) return undefined
    const atom = cs.slice(i, j).join("")
    i = j
    if (!permissive && (atom.startsWith(".") || atom.includes("..") || atom.endsWith("."))) return undefined
    return atom
  }
  const consumeQuotedString = (): string | undefined => {
    let j = i + 1
    let text = ""
    let escaped = false
    for (;;) {
      const r = cs[j]
      if (r === undefined || isSurrogate(r)) return undefined
      if (escaped) {
        if (!isVchar(r) && !isWsp(r)) return undefined
        text += r
        escaped = false
      } else if (isQtext(r) || isWsp(r)) text += r
      else if (r === "\"") break
      else if (r === "\\") escaped = true
      else return undefined
      j++
    }
    i = j + 1
    return text
  }
  const consumeDomainLiteral = (): string | undefined => {
    if (!consume("[")) return undefined
    let dtext = ""
    while (!at("]")) {
      const r = cs[i]
      if (r === undefined || isSurrogate(r) || !isDtext(r)) return undefined
      dtext += r
      i++
    }
    i++
    if (dtext.startsWith("IPv6:")) {
      if (ipv6Groups(dtext.slice(5)) === undefined && !isIPv4(dtext.slice(5))) return undefined
    } else if (!isIPv4(dtext)) {
      const groups = ipv6Groups(dtext)
      if (groups === undefined || !isIPv4Mapped(groups)) return undefined
    }
    return `[${dtext}]`
  }
  const consumeAddrSpec = (): string | undefined => {
    const start = i
    const spec = ((): string | undefined => {
      skipSpace()
      if (empty()) return undefined
      const local = at("\"") ? consumeQuotedString() : consumeAtom(true, false)
      if (local === undefined || local === "") return undefined
      if (!consume("@")) return undefined
      skipSpace()
      if (empty()) return undefined
      const domain = at("[") ? consumeDomainLiteral() : consumeAtom(true, false)
      return domain === undefined ? undefined : `${local}@${domain}`
    })()
    if (spec === undefined) i = start
    return spec
  }
  const decodeWord = (word: string): { word: string; encoded: boolean } | undefined => {
    const decoded = decodeEncodedWord(word)
    if (decoded === "charset-error") return undefined
    return decoded === undefined ? { word, encoded: false } : { word: decoded, encoded: true }
  }
  const consumePhrase = (): string | undefined => {
    const words: Array<string> = []
    let previousEncoded = false
    for (;;) {
      if (words.length > 0 && !skipCFWS()) return undefined
      skipSpace()
      if (empty()) break
      let next: { word: string; encoded: boolean } | undefined
      if (at("\"")) {
        const quoted = consumeQuotedString()
        next = quoted === undefined ? undefined : { word: quoted, encoded: false }
      } else {
        const atom = consumeAtom(true, true)
        next = atom === undefined ? undefined : decodeWord(atom)
      }
      if (next === undefined) break
      if (previousEncoded && next.encoded) words[words.length - 1] += next.word
      else words.push(next.word)
      previousEncoded = next.encoded
    }
    return words.length === 0 ? undefined : words.join(" ")
  }
  const consumeDisplayNameComment = (): string | undefined => {
    if (!consume("(")) return undefined
    const comment = consumeComment()
    if (comment === undefined) return undefined
    const words: Array<string> = []
    for (const word of comment.split(/[ \t]+/).filter((w) => w !== "")) {
      const decoded = decodeWord(word)
      if (decoded === undefined) return undefined
      words.push(decoded.word)
    }
    return words.join(" ")
  }
  const parseAddress = (handleGroup: boolean): ReadonlyArray<MailAddress> | undefined => {
    skipSpace()
    if (empty()) return undefined
    const spec = consumeAddrSpec()
    if (spec !== undefined) {
      skipSpace()
      const name = at("(") ? consumeDisplayNameComment() : ""
      return name === undefined ? undefined : [{ name, address: spec }]
    }
    let name = ""
    if (!at("<")) {
      const phrase = consumePhrase()
      if (phrase === undefined) return undefined
      name = phrase
    }
    skipSpace()
    if (handleGroup && consume(":")) return consumeGroupList()
    if (!consume("<")) return undefined
    const address = consumeAddrSpec()
    if (address === undefined || !consume(">")) return undefined
    return [{ name, address }]
  }
  const consumeGroupList = (): ReadonlyArray<MailAddress> | undefined => {
    const group: Array<MailAddress> = []
    skipSpace()
    if (consume(";")) return skipCFWS() ? group : undefined
    for (;;) {
      skipSpace()
      const addresses = parseAddress(false)
      if (addresses === undefined) return undefined
      group.push(...addresses)
      if (!skipCFWS()) return undefined
      if (consume(";")) return skipCFWS() ? group : undefined
      if (!consume(",")) return undefined
    }
  }

  const addresses = parseAddress(true)
  if (addresses === undefined || !skipCFWS() || !empty() || addresses.length !== 1) return undefined
  return addresses[0]
}

/** `ValidateEmailForAdmin`: non-empty and a bare address (no display name). */
export const isValidEmailForAdmin = (email: string): boolean =>
  email.length > 0 && parseMailAddress(email)?.name === ""

/** Forgejo's `ErrEmailInvalid` text. */
export const emailInvalidMessage = (email: string): string => `e-mail invalid [email: ${email}]`

/** Which binding rule `value` breaks (`Required`, the e-mail text, `MaxSize`), if any. */
export const emailBindingRule = (value: string): string | undefined => {
  if (value.length === 0) return "Required"
  if (!isValidEmailForAdmin(value)) return emailInvalidMessage(value)
  if ([...value].length > EMAIL_MAX_LENGTH) return "MaxSize"
  return undefined
}

/** An address an administrator may give an account. */
export const EmailAddress = Schema.String.check(
  Schema.makeFilter((email: string) => emailBindingRule(email) ?? true)
).pipe(Schema.brand("EmailAddress"))
export type EmailAddress = typeof EmailAddress.Type

/** Binding level (admin user creation): 422 `[<field>]: <rule>` (field `Email`). */
export const bindEmailForAdmin = (value: string, field: string): Effect.Effect<EmailAddress, Invalid> => {
  const rule = emailBindingRule(value)
  return rule === undefined
    ? Effect.succeed(EmailAddress.make(value))
    : Effect.fail(new Invalid({ field, message: `[${field}]: ${rule}` }))
}

/**
 * Model level (admin edit: 400): `e-mail invalid [email: <input>]`, also for "". The length is a
 * binding rule of the edit body (`MaxSize(254)`), so it is not checked here.
 */
export const checkEmailForAdmin = (email: string): Effect.Effect<string, Invalid> =>
  isValidEmailForAdmin(email)
    ? Effect.succeed(email)
    : Effect.fail(new Invalid({ message: emailInvalidMessage(email) }))

/**
 * What anonymous callers (and callers the owner hides it from) see: `<lowername>@noreply.<domain>`,
 * Forgejo's default `NO_REPLY_ADDRESS`.
 */
export const placeholderEmail = (name: string, domain: string): string => `${name.toLowerCase()}@noreply.${domain}`
