/**
 * Which hosts a migration may clone from (Forgejo's `[migrations]` ALLOWED_DOMAINS /
 * ALLOW_LOCALNETWORKS, services/migrations isURLAllowed, modules/hostmatcher), made stricter
 * where Kiln's brief asks: a host is refused when ANY address it resolves to is refused, so a
 * name that resolves to one public and one private address cannot reach the private one.
 */
import { Context } from "effect"
import { nameGlob, quoteGlob } from "./NameGlob.ts"

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

const classifyIpv4 = ([a = 0, b = 0, c = 0, d = 0]: ReadonlyArray<number>): AddressClass => {
  if (a === 127) return "loopback"
  // Alibaba Cloud's metadata service sits inside the shared address space below.
  if (a === 100 && b === 100 && c === 100 && d === 200) return "other"
  // RFC 1918, plus the carrier-grade NAT shared space (RFC 6598): not reachable from the internet either.
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return "private"
  // Unspecified, "this network", link-local (cloud metadata lives there), IETF protocol assignments
  // (192.0.0.0/24), benchmarking (198.18.0.0/15), multicast, reserved, broadcast.
  if (a === 0 || (a === 169 && b === 254) || (a === 192 && b === 0 && c === 0) || (a === 198 && (b === 18 || b === 19)) || a >= 224) {
    return "other"
  }
  return "external"
}

const bytesOf = (high: number, low: number): ReadonlyArray<number> => [high >> 8, high & 0xff, low >> 8, low & 0xff]

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that carry one: a
 * packet to it ends up at that IPv4 host (through the kernel, a NAT64 gateway or a tunnel), so it
 * is judged as that host.
 */
const embeddedIpv4 = (groups: ReadonlyArray<number>): ReadonlyArray<number> | undefined => {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups
  const zeroUpTo = (count: number) => groups.slice(0, count).every((group) => group === 0)
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-translated ::ffff:0:a.b.c.d (RFC 2765).
  if (zeroUpTo(5) && g5 === 0xffff) return bytesOf(g6, g7)
  if (zeroUpTo(4) && g4 === 0xffff && g5 === 0) return bytesOf(g6, g7)
  // IPv4-compatible ::a.b.c.d (deprecated; `::` and `::1` are not of this form).
  if (zeroUpTo(6) && (g6 !== 0 || g7 > 1)) return bytesOf(g6, g7)
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052).
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return bytesOf(g6, g7)
  // Local-use NAT64 64:ff9b:1::/48 (RFC 8215): a /48 prefix puts the IPv4 around the reserved octet u.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return [g3 >> 8, g3 & 0xff, g4 & 0xff, g5 >> 8]
  // 6to4 2002:aabb:ccdd::/48 (RFC 3056).
  if (g0 === 0x2002) return bytesOf(g1, g2)
  // Teredo 2001:0::/32 (RFC 4380): the client's address, stored inverted.
  if (g0 === 0x2001 && g1 === 0) return bytesOf(~g6 & 0xffff, ~g7 & 0xffff)
  return undefined
}

/** Go's net.IP classes as hostmatcher's builtins use them: loopback, private (RFC 1918/4193), external (global unicast). */
export const classifyAddress = (text: string): AddressClass => {
  const v4 = parseIpv4(text)
  if (v4 !== undefined) return classifyIpv4(v4)
  const v6 = parseIpv6(text)
  if (v6 === undefined) return "other"
  const [g0 = 0, g1 = 0, , , , , , g7 = 0] = v6
  if (v6.every((group) => group === 0)) return "other"
  if (v6.slice(0, 7).every((group) => group === 0) && g7 === 1) return "loopback"
  const v4Inside = embeddedIpv4(v6)
  if (v4Inside !== undefined) return classifyIpv4(v4Inside)
  // AWS's IPv6 metadata service, inside the unique-local range.
  if (v6.join(":") === [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(":")) return "other"
  if ((g0 & 0xfe00) === 0xfc00) return "private"
  // Link-local, site-local (deprecated), multicast, discard-only (100::/64), documentation (2001:db8::/32).
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0 || (g0 & 0xff00) === 0xff00) return "other"
  if ((g0 === 0x100 && v6.slice(1, 4).every((group) => group === 0)) || (g0 === 0x2001 && g1 === 0xdb8)) return "other"
  return "external"
}

/** `*` stands for any run of characters, everything else for itself; linear, never backtracking. */
const globMatches = (pattern: string, host: string): boolean =>
  nameGlob(pattern.toLowerCase().trim().split("*").map(quoteGlob).join("*"))(host.toLowerCase())

/**
 * Whether a clone from `host`, which resolved to `addresses`, is allowed. Every address must be
 * allowed: external ones, loopback and private ones with allowLocal, never link-local, metadata or
 * other special addresses. With allowedDomains set, a host must also be listed, unless all its
 * addresses are local ones that allowLocal opens (Forgejo adds those to its allow-list). Listing a
 * name never skips the address check, and a host that resolved to nothing is refused: git must
 * never resolve a name on its own, unpinned.
 */
export const isHostAllowed = (settings: MigrationSettingsShape, host: string, addresses: ReadonlyArray<string>): boolean => {
  if (addresses.length === 0) return false
  const kinds = addresses.map(classifyAddress)
  const isLocal = (kind: AddressClass) => kind === "loopback" || kind === "private"
  if (!kinds.every((kind) => kind === "external" || (isLocal(kind) && settings.allowLocal))) return false
  const listed = settings.allowedDomains.filter((pattern) => pattern.trim() !== "")
  return listed.length === 0 || listed.some((pattern) => globMatches(pattern, host)) || kinds.every(isLocal)
}
