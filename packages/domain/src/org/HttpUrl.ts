/**
 * Forgejo's `IsValidURL` (binding rule `ValidUrl`, webhook `config.url`): Go's
 * `url.ParseRequestURI` must accept the text, the scheme must be http or https, and a port, if
 * any, must be digits. [modules/validation/helpers.go, modules/validation/binding.go]
 * This follows Go's parser closely enough for the rule: control characters, bad `%` escapes,
 * characters Go refuses in a host, and non-numeric ports fail; a rootless `http:x` passes, as in Go.
 */
import { Effect } from "effect"
import { Invalid } from "../errors.ts"

const schemePattern = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s
const controlPattern = /[\x00-\x1f\x7f]/
const badEscapePattern = /%(?![0-9A-Fa-f]{2})/
// ASCII characters Go's `shouldEscape(c, encodeHost)` rejects in a host name (`%` is checked as an escape).
const badHostPattern = /[ #^`{|}\\]/

const validHost = (host: string): boolean => {
  if (badEscapePattern.test(host)) return false
  if (host.startsWith("[")) {
    const close = host.indexOf("]")
    if (close < 0) return false
    const rest = host.slice(close + 1)
    return rest === "" || /^:[0-9]*$/.test(rest)
  }
  const colon = host.lastIndexOf(":")
  if (colon >= 0 && !/^[0-9]*$/.test(host.slice(colon + 1))) return false
  return !badHostPattern.test(host)
}

export const isValidHttpUrl = (text: string): boolean => {
  if (controlPattern.test(text)) return false
  const parsed = schemePattern.exec(text)
  if (parsed === null) return false
  const scheme = (parsed[1] ?? "").toLowerCase()
  if (scheme !== "http" && scheme !== "https") return false
  // Go cuts the query off first; `#` stays part of the path for a request URI.
  const rest = (parsed[2] ?? "").split("?")[0] ?? ""
  if (!rest.startsWith("/")) return true
  if (!rest.startsWith("//")) return !badEscapePattern.test(rest)
  const authorityAndPath = rest.slice(2)
  const slash = authorityAndPath.indexOf("/")
  const authority = slash < 0 ? authorityAndPath : authorityAndPath.slice(0, slash)
  const path = slash < 0 ? "" : authorityAndPath.slice(slash)
  const host = authority.slice(authority.lastIndexOf("@") + 1)
  return validHost(host) && !badEscapePattern.test(path)
}

/** The host of a URL that `isValidHttpUrl` accepted, as Go's `URL.Hostname()` gives it (no brackets, no port). */
const hostnameOf = (text: string): string => {
  const rest = text.replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, "").split("?")[0] ?? ""
  if (!rest.startsWith("//")) return ""
  const authority = rest.slice(2).split("/")[0] ?? ""
  const host = authority.slice(authority.lastIndexOf("@") + 1)
  if (host.startsWith("[")) return host.slice(1, host.indexOf("]"))
  const colon = host.lastIndexOf(":")
  return colon < 0 ? host : host.slice(0, colon)
}

/** Go's `net.ParseIP(host).IsLoopback()`: 127.0.0.0/8, `::1`, and 127/8 written as an IPv4-mapped IPv6 address. */
const isLoopbackIp = (host: string): boolean => {
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i.exec(host)
  if (v4 !== null) return v4.slice(1).every((part) => Number(part) <= 255) && v4[1] === "127"
  if (!host.includes(":")) return false
  const expanded = host.toLowerCase()
  return /^(?:0{0,4}:){2,7}0{0,3}1$/.test(expanded) || expanded === "::1"
}

/**
 * Forgejo's `IsValidExternalURL` (external trackers and wikis): a valid http(s) URL whose host is
 * neither `localhost` nor a loopback address. Forgejo also refuses URLs under its own
 * `<ROOT_URL>api`; the domain does not know the root URL, so that check is not made here.
 */
export const isValidExternalUrl = (text: string): boolean => {
  if (!isValidHttpUrl(text)) return false
  const host = hostnameOf(text)
  return host.toLowerCase() !== "localhost" && !isLoopbackIp(host)
}

/**
 * Forgejo's `IsValidExternalTrackerURLFormat`: an external URL whose `{user}`, `{repo}` and
 * `{index}` placeholders have both braces or none (`/{index/` is a typo).
 */
export const isValidExternalTrackerFormat = (text: string): boolean => {
  if (!isValidExternalUrl(text)) return false
  for (const match of text.matchAll(/(\{?)(?:user|repo|index)+?(\}?)/g)) {
    const open = match[1] === "{"
    const close = match[2] === "}"
    if ((open || close) && !(open && close)) return false
  }
  return true
}

/** The binding rule on an optional field: "" passes, anything else must be valid (422 `[<Field>]: Url`). */
export const checkHttpUrl = (value: string | undefined, field: string): Effect.Effect<void, Invalid> =>
  value === undefined || value === "" || isValidHttpUrl(value)
    ? Effect.void
    : Effect.fail(new Invalid({ field, message: `[${field}]: Url` }))
