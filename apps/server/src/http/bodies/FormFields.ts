/**
 * `application/x-www-form-urlencoded` text split into its fields in time linear in its length.
 * Node's `URLSearchParams` is quadratic on value-less pairs (`a&a&a&…`: 2 MiB held the event loop
 * for 9 s), so neither bodies nor query strings go through it. Decoding follows the WHATWG rules
 * `URLSearchParams` applies: `+` is a space, `%XX` a byte, a `%` without two hex digits stays as it
 * is, and bytes that are not UTF-8 become U+FFFD.
 */

/** More fields than any option has; Go caps the whole form at 10 MB, this caps the pairs too. */
export const MAX_FORM_FIELDS = 1000

const utf8 = new TextDecoder()
const encoder = new TextEncoder()

const hexValue = (c: number): number =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1

/** One name or value, `+` and percent escapes decoded. */
export const decodeFormComponent = (raw: string): string => {
  const spaced = raw.includes("+") ? raw.replaceAll("+", " ") : raw
  if (!spaced.includes("%")) return spaced
  const bytes = encoder.encode(spaced)
  const out = new Uint8Array(bytes.length)
  let length = 0
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index] ?? 0
    if (byte === 0x25 && index + 2 < bytes.length) {
      const high = hexValue(bytes[index + 1] ?? 0)
      const low = hexValue(bytes[index + 2] ?? 0)
      if (high >= 0 && low >= 0) {
        out[length++] = high * 16 + low
        index += 2
        continue
      }
    }
    out[length++] = byte
  }
  return utf8.decode(out.subarray(0, length))
}

/**
 * The fields in order, or `undefined` when there are more than `maxFields` (counted as the text is
 * split, so a hostile body is not split further than that). Empty pieces (`a&&b`) are skipped.
 */
export const formFields = (
  text: string,
  maxFields: number = MAX_FORM_FIELDS
): ReadonlyArray<readonly [string, string]> | undefined => {
  const fields: Array<readonly [string, string]> = []
  let start = 0
  while (start <= text.length) {
    const ampersand = text.indexOf("&", start)
    const end = ampersand === -1 ? text.length : ampersand
    if (end > start) {
      if (fields.length === maxFields) return undefined
      // Searched within the piece only: a search of the whole rest would make `a&a&…&=` quadratic.
      const piece = text.slice(start, end)
      const equals = piece.indexOf("=")
      fields.push(
        equals === -1
          ? [decodeFormComponent(piece), ""]
          : [decodeFormComponent(piece.slice(0, equals)), decodeFormComponent(piece.slice(equals + 1))]
      )
    }
    start = end + 1
  }
  return fields
}
