/**
 * Serving a stored file: one byte range (`Range: bytes=a-b`, `a-`, `-n`) answered with 206 and
 * `Content-Range`, an unsatisfiable one with 416, anything else the whole file; always streamed
 * from disk with its `Content-Length`. Forgejo's download headers [modules/httplib/serve.go].
 */
import { Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import type { BlobContent, ByteRange } from "@kiln/domain/release/BlobStorage"

/** The range asked for, `unsatisfiable`, or undefined for the whole file (also for several ranges). */
export const parseRange = (header: string | undefined, size: number): ByteRange | "unsatisfiable" | undefined => {
  if (header === undefined) return undefined
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null) return undefined
  const [, from = "", to = ""] = match
  if (from === "" && to === "") return undefined
  if (from === "") {
    const suffix = Number(to)
    if (suffix === 0 || size === 0) return "unsatisfiable"
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(from)
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1)
  if (start >= size || end < start) return "unsatisfiable"
  return { start, end }
}

/**
 * `attachment; filename="a \"b\""; filename*=UTF-8''a%20%22b%22` (RFC 6266): the name in UTF-8
 * in `filename*`, and in printable ASCII in `filename` for clients that read only that one. File
 * names are user text, and Node refuses a header with a control character (CR and LF among them)
 * or a character above U+00FF, and writes U+0080–U+00FF as single Latin-1 bytes: control
 * characters become `_` in both forms, every other character outside printable ASCII `_` in the
 * plain one, and a lone surrogate (which `encodeURIComponent` throws on) U+FFFD.
 */
export const contentDisposition = (disposition: "inline" | "attachment", fileName: string): string => {
  const name = fileName.toWellFormed().replace(/[\u0000-\u001f\u007f-\u009f]/g, "_")
  const plain = name.replace(/[^\u0020-\u007e]/gu, "_").replaceAll("\\", "\\\\").replaceAll("\"", "\\\"")
  // RFC 8187's attr-char leaves out ' ( ) * as well, which encodeURIComponent keeps.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${disposition}; filename="${plain}"; filename*=UTF-8''${encoded}`
}

/** The first bytes of the file, for sniffing its type. */
export const head = (content: BlobContent, bytes = 1024): Effect.Effect<Uint8Array> =>
  content.size === 0 ? Effect.succeed(new Uint8Array()) : content.stream({ start: 0, end: Math.min(bytes, content.size) - 1 }).pipe(
    Stream.runCollect,
    Effect.map((chunks) => Buffer.concat(Array.from(chunks))),
    Effect.orDie
  )

const signatures: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ["image/jpeg", [0xff, 0xd8, 0xff]],
  ["image/gif", [0x47, 0x49, 0x46, 0x38]],
  ["image/webp", [0x52, 0x49, 0x46, 0x46]],
  ["application/pdf", [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ["audio/mpeg", [0x49, 0x44, 0x33]],
  ["video/webm", [0x1a, 0x45, 0xdf, 0xa3]]
]

/**
 * Forgejo's type for an attachment: images, PDF, audio and video as themselves, text as
 * `text/plain; charset=utf-8`, everything else `application/octet-stream`.
 */
export const sniffContentType = (bytes: Uint8Array): string => {
  for (const [type, signature] of signatures) {
    if (signature.every((byte, index) => bytes[index] === byte)) return type
  }
  const isText = !bytes.some((byte) => byte === 0 || (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b))
  return isText ? "text/plain; charset=utf-8" : "application/octet-stream"
}

export const fileResponse = (
  content: BlobContent,
  rangeHeader: string | undefined,
  headers: { readonly contentType: string; readonly [name: string]: string }
): HttpServerResponse.HttpServerResponse => {
  const { contentType, ...rest } = headers
  const common = { ...rest, "accept-ranges": "bytes", "x-content-type-options": "nosniff" }
  const range = parseRange(rangeHeader, content.size)
  if (range === "unsatisfiable") {
    return HttpServerResponse.text("invalid range", {
      status: 416,
      headers: { ...common, "content-range": `bytes */${content.size}` }
    })
  }
  if (range === undefined) {
    return HttpServerResponse.stream(content.stream(), { contentType, contentLength: content.size, headers: common })
  }
  return HttpServerResponse.stream(content.stream(range), {
    status: 206,
    contentType,
    contentLength: range.end - range.start + 1,
    headers: { ...common, "content-range": `bytes ${range.start}-${range.end}/${content.size}` }
  })
}
