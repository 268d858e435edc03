/**
 * The `gpgsig` header of a git commit object, written and read the way git does.
 *
 * A signed commit is the unsigned object (the payload that was signed) with one extra header after the
 * others: `gpgsig <first line of the armored signature>`, each further line prefixed by one space (an empty
 * armor line becomes a lone space). SHA-256 repositories name the header `gpgsig-sha256`.
 */
import { Option } from "effect"

export type ObjectFormat = "sha1" | "sha256"

const signatureHeader = (format: ObjectFormat): string => (format === "sha256" ? "gpgsig-sha256" : "gpgsig")

/** The commit object to store: `payload` (headers, blank line, message) with the signature header added. */
export const withSignature = (payload: string, armoredSignature: string, format: ObjectFormat = "sha1"): string => {
  const blankLine = payload.indexOf("\n\n")
  const headersEnd = blankLine === -1 ? payload.length : blankLine + 1
  const lines = armoredSignature.replace(/\n+$/, "").split("\n")
  const header = `${signatureHeader(format)} ${lines.join("\n ")}\n`
  return payload.slice(0, headersEnd) + header + payload.slice(headersEnd)
}

/**
 * Splits a raw commit object into the signed payload and the armored signature, as Forgejo's commit reader
 * does: the signature is the header's lines without their leading space, ending in a newline; the payload is
 * the object without any `gpgsig`/`gpgsig-sha256` header. Other headers' continuation lines stay in the payload.
 */
export const splitSignature = (rawCommit: string): { readonly payload: string; readonly signature: Option.Option<string> } => {
  const blankLine = rawCommit.indexOf("\n\n")
  const headersEnd = blankLine === -1 ? rawCommit.length : blankLine + 1
  const payload: Array<string> = []
  const signature: Array<string> = []
  let inSignature = false
  for (const line of rawCommit.slice(0, headersEnd).split("\n").slice(0, -1)) {
    if (line.startsWith(" ")) {
      if (inSignature) signature.push(line.slice(1))
      else payload.push(line)
      continue
    }
    const space = line.indexOf(" ")
    const name = space === -1 ? line : line.slice(0, space)
    inSignature = name === "gpgsig" || name === "gpgsig-sha256"
    if (inSignature) signature.push(line.slice(name.length + 1))
    else payload.push(line)
  }
  return {
    payload: payload.map((line) => `${line}\n`).join("") + rawCommit.slice(headersEnd),
    signature: signature.length === 0 ? Option.none() : Option.some(signature.map((line) => `${line}\n`).join(""))
  }
}
