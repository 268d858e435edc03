/**
 * JSON as Go's encoding/json writes it, which Forgejo's payloads are: `<`, `>`, `&`, U+2028 and
 * U+2029 escaped as `\u003c`… (they only occur inside strings, so escaping the whole text is safe),
 * `MarshalIndent` with two spaces, and `Marshal` of a decoded object with its keys sorted (Go maps).
 */
const goEscapes: Readonly<Record<string, string>> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029"
}

const escapeHtml = (json: string): string => json.replace(/[<>&\u2028\u2029]/g, (c) => goEscapes[c] ?? c)

/** `json.MarshalIndent(value, "", indent)` of a struct whose fields are in `value`'s key order. */
export const marshalIndent = (value: unknown, indent = "  "): string => escapeHtml(JSON.stringify(value, null, indent))

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return Object.fromEntries(entries.map(([key, item]) => [key, sortKeys(item)]))
  }
  return value
}

/** `json.Marshal` of a `map[string]any`: compact, keys sorted at every level. */
export const marshalMap = (value: unknown): string => escapeHtml(JSON.stringify(sortKeys(value)))

/** Go's `url.QueryEscape`: unreserved characters stay, a space becomes `+`, the rest is %XX (upper case). */
export const queryEscape = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+")
