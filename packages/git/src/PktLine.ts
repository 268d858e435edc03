/**
 * Git's pkt-line framing: each line is its length (4 hex digits, the 4 included) and its bytes;
 * `0000` is a flush and `0001` a delimiter (protocol v2).
 */

/** A flush (`0000`) in the lines `pktLines` reads. */
export const FLUSH: unique symbol = Symbol("flush")
/** A delimiter (`0001`) in the lines `pktLines` reads. */
export const DELIMITER: unique symbol = Symbol("delimiter")

/** A flush as written. */
export const FLUSH_LINE = "0000"

export type PktLine = string | typeof FLUSH | typeof DELIMITER

/**
 * The length a pkt-line starting at `offset` gives itself (its 4 hex digits, lower case as git
 * writes them); undefined when they are not 4 such digits or not all there yet.
 */
export const pktLength = (bytes: Uint8Array, offset: number): number | undefined => {
  if (bytes.length < offset + 4) return undefined
  let length = 0
  for (let index = offset; index < offset + 4; index++) {
    const code = bytes[index] ?? -1
    const digit = code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1
    if (digit < 0) return undefined
    length = length * 16 + digit
  }
  return length
}

/** `text` as one pkt-line. */
export const pktLine = (text: string): string => `${(Buffer.byteLength(text) + 4).toString(16).padStart(4, "0")}${text}`

/**
 * The lines of `bytes` (data as text), a flush as FLUSH and a delimiter as DELIMITER; undefined when
 * `bytes` is not a whole sequence of pkt-lines.
 */
export const pktLines = (bytes: Buffer): ReadonlyArray<PktLine> | undefined => {
  const lines: Array<PktLine> = []
  let offset = 0
  while (offset < bytes.length) {
    const length = pktLength(bytes, offset)
    if (length === 0 || length === 1) {
      lines.push(length === 0 ? FLUSH : DELIMITER)
      offset += 4
      continue
    }
    if (length === undefined || length < 4 || offset + length > bytes.length) return undefined
    lines.push(bytes.toString("utf8", offset + 4, offset + length))
    offset += length
  }
  return lines
}
