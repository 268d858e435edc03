/** Strong entity tags of answers, and the request's conditions on them (RFC 9110 §13). */
import { hash } from "node:crypto"
import { sha1Base64Url } from "./Sha1.ts"

/** Up to this many bytes a body is hashed in JavaScript (Sha1.ts), past it by Node's one-shot digest. */
export const SMALL_BODY_BYTES = 256

const digestOf = (body: Uint8Array): string =>
  `"${body.length <= SMALL_BODY_BYTES ? sha1Base64Url(body) : hash("sha1", body, "base64url")}"`

/** Tags computed ahead, for bodies sent again and again (RepositoryAnswers.ts), while they live. */
const keptTags = new WeakMap<Uint8Array, string>()

/** The tag of a body: its SHA-1, so every process (and every restart) tags the same body alike. */
export const tagOf = (body: Uint8Array): string => keptTags.get(body) ?? digestOf(body)

/** Computes `body`'s tag now, for `tagOf` to find each time the same body is sent. */
export const keepTag = (body: Uint8Array): void => {
  keptTags.set(body, digestOf(body))
}

/**
 * `If-None-Match` against `tag`, by weak comparison as the RFC asks for this header: `*` or any
 * listed tag, `W/` or not, that names it.
 */
export const noneMatchHolds = (header: string, tag: string): boolean => {
  if (header.trim() === "*") return true
  for (const part of header.split(",")) {
    const candidate = part.trim()
    if (candidate === tag || (candidate.startsWith("W/") && candidate.slice(2) === tag)) return true
  }
  return false
}

/** `If-Modified-Since` against a `Last-Modified` value: not modified since when not later. */
export const notModifiedSince = (ifModifiedSince: string, lastModified: string): boolean => {
  const since = Date.parse(ifModifiedSince)
  const modified = Date.parse(lastModified)
  return Number.isFinite(since) && Number.isFinite(modified) && modified <= since
}

/** An HTTP date (`Last-Modified`) of unix seconds. */
export const httpDate = (unixSeconds: number): string => new Date(unixSeconds * 1000).toUTCString()
