/**
 * Forgejo's `util.URLJoin` and `markup.IsLink`: how relative destinations become URLs.
 * Go's `path.Join` cleans the joined elements and `url.ResolveReference` resolves them against
 * the base; the WHATWG URL parser does the resolution here.
 */

/** `^[a-z][\w-]+://`: what Forgejo treats as an absolute link (lower-case scheme, with authority). */
export const isLink = (link: string): boolean => /^[a-z][\w-]+:\/\//.test(link)

const schemePattern = /^[a-zA-Z][a-zA-Z0-9+.-]*:/
const invalidEscape = /%(?![0-9a-fA-F]{2})/
const placeholderOrigin = "http://kiln.invalid"

/** Go's `path.Clean`. */
const cleanPath = (path: string): string => {
  if (path === "") return "."
  const rooted = path.startsWith("/")
  const out: Array<string> = []
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop()
      else if (!rooted) out.push("..")
      continue
    }
    out.push(segment)
  }
  const joined = out.join("/")
  return rooted ? `/${joined}` : joined === "" ? "." : joined
}

/** Go's `path.Join`: empty elements are ignored, all empty gives "". */
const joinPath = (elements: ReadonlyArray<string>): string => {
  const parts = elements.filter((e) => e !== "")
  return parts.length === 0 ? "" : cleanPath(parts.join("/"))
}

/** Go's url.Parse refuses control characters, bad escapes and a colon in a scheme-less first segment. */
const unparseable = (reference: string): boolean =>
  /[\u0000-\u001f\u007f]/.test(reference) || invalidEscape.test(reference) ||
  (!schemePattern.test(reference) && /^[^/?#]*:/.test(reference))

export const urlJoin = (base: string, ...elements: ReadonlyArray<string>): string => {
  const slashed = base.endsWith("/") ? base : `${base}/`
  const reference = joinPath(elements)
  if (unparseable(slashed) && !schemePattern.test(slashed)) return ""
  if (unparseable(reference)) return ""
  // An absolute reference (any scheme) resolves to itself.
  if (schemePattern.test(reference)) return reference
  try {
    if (schemePattern.test(slashed)) return new URL(reference, slashed).href
    const rooted = slashed.startsWith("/")
    const resolved = new URL(reference, placeholderOrigin + (rooted ? slashed : `/${slashed}`))
    if (resolved.origin !== placeholderOrigin) return resolved.href
    const path = resolved.pathname + resolved.search + resolved.hash
    return rooted ? path : path.slice(1)
  } catch {
    return ""
  }
}
