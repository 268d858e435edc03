/**
 * Which addresses a webhook may connect to: Forgejo's `[webhook] ALLOWED_HOST_LIST`
 * (modules/hostmatcher), as `KILN_WEBHOOK_ALLOWED_HOSTS`. Comma-separated: `loopback`, `private`,
 * `external` (the default: global unicast, not private), `*` (anything), CIDRs, and host name globs.
 * A host name glob allows the host whatever it resolves to; otherwise the resolved address decides,
 * and it is the address connected to.
 */
import { classifyAddress } from "../repo/MigrationHostPolicy.ts"
import { compileNameGlob } from "../repo/NameGlob.ts"

export interface AllowedHosts {
  readonly any: boolean
  readonly builtins: ReadonlyArray<"loopback" | "private" | "external">
  readonly cidrs: ReadonlyArray<Cidr>
  readonly hostGlobs: ReadonlyArray<(host: string) => boolean>
}

interface Cidr {
  readonly bytes: ReadonlyArray<number>
  readonly bits: number
}

export const DEFAULT_ALLOWED_HOSTS = "external"

const ipv4Bytes = (text: string): ReadonlyArray<number> | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined
  const bytes = parts.map(Number)
  return bytes.every((byte) => byte <= 255) ? bytes : undefined
}

const ipv6Bytes = (text: string): ReadonlyArray<number> | undefined => {
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const groups = (part: string) => (part === "" ? [] : part.split(":"))
  const left = groups(halves[0] ?? "")
  const right = groups(halves[1] ?? "")
  const tail: Array<number> = []
  const last = (halves.length === 2 ? right : left).at(-1)
  if (last !== undefined && last.includes(".")) {
    const v4 = ipv4Bytes(last)
    if (v4 === undefined) return undefined
    ;(halves.length === 2 ? right : left).pop()
    tail.push(...v4)
  }
  const all = [...left, ...right]
  if (!all.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group))) return undefined
  const missing = 8 - all.length - tail.length / 2
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const words = [...left.map((g) => parseInt(g, 16)), ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right.map((g) => parseInt(g, 16))]
  return [...words.flatMap((word) => [word >> 8, word & 0xff]), ...tail]
}

/** The 4 or 16 bytes of an address (an IPv4-mapped IPv6 address as its IPv4 bytes), as Go's net.IP compares them. */
export const addressBytes = (text: string): ReadonlyArray<number> | undefined => {
  const v4 = ipv4Bytes(text)
  if (v4 !== undefined) return v4
  const v6 = ipv6Bytes(text.replace(/%.*$/, ""))
  if (v6 === undefined) return undefined
  const mapped = v6.slice(0, 10).every((byte) => byte === 0) && v6[10] === 0xff && v6[11] === 0xff
  return mapped ? v6.slice(12) : v6
}

const parseCidr = (text: string): Cidr | undefined => {
  const [address = "", bitsText = ""] = text.split("/")
  const bytes = addressBytes(address)
  if (bytes === undefined || !/^\d{1,3}$/.test(bitsText)) return undefined
  const bits = Number(bitsText)
  return bits <= bytes.length * 8 ? { bytes, bits } : undefined
}

const inCidr = (cidr: Cidr, bytes: ReadonlyArray<number>): boolean => {
  if (bytes.length !== cidr.bytes.length) return false
  for (let bit = 0; bit < cidr.bits; bit++) {
    const mask = 0x80 >> (bit % 8)
    const index = Math.floor(bit / 8)
    if (((bytes[index] ?? 0) & mask) !== ((cidr.bytes[index] ?? 0) & mask)) return false
  }
  return true
}

/** Forgejo's ParseHostMatchList: items trimmed and lower-cased, empty ones ignored. */
export const parseAllowedHosts = (list: string): AllowedHosts => {
  const items = list.split(",").map((item) => item.trim().toLowerCase()).filter((item) => item !== "")
  const builtins: Array<"loopback" | "private" | "external"> = []
  const cidrs: Array<Cidr> = []
  const hostGlobs: Array<(host: string) => boolean> = []
  let any = false
  for (const item of items) {
    if (item === "*") any = true
    else if (item === "loopback" || item === "private" || item === "external") builtins.push(item)
    else {
      const cidr = item.includes("/") ? parseCidr(item) : undefined
      if (cidr !== undefined) cidrs.push(cidr)
      else {
        // A pattern that does not compile matches nothing (Forgejo's filepath.Match reports an error).
        const glob = compileNameGlob(item)
        if (glob !== undefined) hostGlobs.push(glob)
      }
    }
  }
  return { any, builtins, cidrs, hostGlobs }
}

/** MatchHostName: `*` or a host glob. */
export const allowsHostName = (allowed: AllowedHosts, host: string): boolean =>
  allowed.any || allowed.hostGlobs.some((matches) => matches(host.toLowerCase()))

/** MatchIPAddr: `*`, a builtin class, or a CIDR. */
export const allowsAddress = (allowed: AllowedHosts, address: string): boolean => {
  if (allowed.any) return true
  const kind = classifyAddress(address)
  if (allowed.builtins.some((builtin) => builtin === kind)) return true
  const bytes = addressBytes(address)
  return bytes !== undefined && allowed.cidrs.some((cidr) => inCidr(cidr, bytes))
}

/** MatchHostOrIP: the host name, or else the address it resolved to. */
export const allowsConnection = (allowed: AllowedHosts, host: string, address: string): boolean =>
  allowsHostName(allowed, host) || allowsAddress(allowed, address)

/** Forgejo's refusal text, naming Kiln's setting. */
export const refusalMessage = (host: string, address: string): string =>
  `webhook can only call allowed HTTP servers (check your KILN_WEBHOOK_ALLOWED_HOSTS setting), deny '${host}(${address})'`
