/**
 * Which hosts a migration may clone from (Forgejo's `[migrations]` ALLOWED_DOMAINS /
 * ALLOW_LOCALNETWORKS, services/migrations isURLAllowed, modules/hostmatcher), made stricter
 * where Kiln's brief asks: a host is refused when ANY address it resolves to is refused, so a
 * name that resolves to one public and one private address cannot reach the private one.
 */
import { Context } from "effect"

export interface MigrationSettingsShape {
  /** `KILN_MIGRATIONS_ALLOW_LOCAL`: loopback and private networks allowed. */
  readonly allowLocal: boolean
  /** `KILN_MIGRATIONS_ALLOWED_DOMAINS`: host name globs (`*` = any run of characters); when set, only these hosts (and local networks with allowLocal). */
  readonly allowedDomains: ReadonlyArray<string>
  /** `KILN_MIGRATIONS_ALLOW_LOCAL_PATHS`: site admins may import from local directories. */
  readonly allowLocalPaths: boolean
  /** `KILN_MIGRATIONS_MAX_SIZE`: bytes a clone may take on disk before it is aborted. */
  readonly maxSize: number
}

export class MigrationSettings extends Context.Reference<MigrationSettingsShape>("@kiln/domain/repo/MigrationSettings", {
  defaultValue: () => ({ allowLocal: false, allowedDomains: [], allowLocalPaths: false, maxSize: 2 * 1024 ** 3 })
}) {}

export type AddressClass = "loopback" | "private" | "external" | "other"

const parseIpv4 = (text: string): ReadonlyArray<number> | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const bytes = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : Number.NaN))
  return bytes.every((byte) => Number.isInteger(byte) && byte <= 255) ? bytes : undefined
}

/** The 8 groups of an IPv6 address (an embedded IPv4 tail becomes the last two). */
const parseIpv6 = (text: string): ReadonlyArray<number> | undefined => {
  let address = text.replace(/%.*$/, "")
  let tail: readonly [number, number] | undefined
  if (address.includes(".")) {
    const lastColon = address.lastIndexOf(":")
    const v4 = parseIpv4(address.slice(lastColon + 1))
    if (v4 === undefined || lastColon < 0) return undefined
    const [a = 0, b = 0, c = 0, d = 0] = v4
    tail = [(a << 8) | b, (c << 8) | d]
    address = `${address.slice(0, lastColon + 1)}0:0`
  }
  const halves = address.split("::")
  if (halves.length > 2) return undefined
  const groups = (part: string) =>
    (part === "" ? [] : part.split(":")).map((group) => (/^[0-9a-fA-F]{1,4}$/.test(group) ? parseInt(group, 16) : Number.NaN))
  const left = groups(halves[0] ?? "")
  const right = halves.length === 2 ? groups(halves[1] ?? "") : []
  if ([...left, ...right].some(Number.isNaN)) return undefined
  const missing = 8 - left.length - right.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const all = [...left, ...Array<number>(missing).fill(0), ...right]
  return tail === undefined ? all : [...all.slice(0, 6), ...tail]
}

const classifyIpv4 = ([a = 0, b = 0]: ReadonlyArray<number>, text: string): AddressClass => {
  if (a === 127) return "loopback"
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private"
  // Unspecified, "this network", link-local (cloud metadata lives there), multicast, reserved, broadcast.
  if (a === 0 || (a === 169 && b === 254) || a >= 224 || text === "255.255.255.255") return "other"
  return "external"
}

/** Go's net.IP classes as hostmatcher's builtins use them: loopback, private (RFC 1918/4193), external (global unicast). */
export const classifyAddress = (text: string): AddressClass => {
  const v4 = parseIpv4(text)
  if (v4 !== undefined) return classifyIpv4(v4, text)
  const v6 = parseIpv6(text)
  if (v6 === undefined) return "other"
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = v6
  // IPv4-mapped (::ffff:a.b.c.d): judged as the IPv4 address.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) {
    const mapped = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff]
    return classifyIpv4(mapped, mapped.join("."))
  }
  if (v6.every((group) => group === 0)) return "other"
  if (v6.slice(0, 7).every((group) => group === 0) && g7 === 1) return "loopback"
  if ((g0 & 0xfe00) === 0xfc00) return "private"
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xff00) === 0xff00) return "other"
  return "external"
}

const globMatches = (pattern: string, host: string): boolean => {
  const expression = pattern.toLowerCase().trim().split("*").map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")
  return new RegExp(`^${expression}$`).test(host.toLowerCase())
}

/**
 * Whether a clone from `host`, which resolved to `addresses`, is allowed. A host named in
 * allowedDomains is allowed whatever it resolves to; otherwise every address must be allowed
 * (external ones only while no allowedDomains are set, loopback and private ones with allowLocal),
 * and a host that resolved to nothing is refused.
 */
export const isHostAllowed = (settings: MigrationSettingsShape, host: string, addresses: ReadonlyArray<string>): boolean => {
  if (settings.allowedDomains.some((pattern) => pattern.trim() !== "" && globMatches(pattern, host))) return true
  if (addresses.length === 0) return false
  return addresses.every((address) => {
    const kind = classifyAddress(address)
    if (kind === "external") return settings.allowedDomains.length === 0
    if (kind === "loopback" || kind === "private") return settings.allowLocal
    return false
  })
}
