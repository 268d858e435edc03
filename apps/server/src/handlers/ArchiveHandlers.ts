/**
 * Archive downloads (api-facts §4.9): the archive is made once per commit and format (see
 * GitArchives) and streamed from disk, with Forgejo's headers, a strong ETag (the bytes are fixed
 * by the commit), single-range requests and `If-None-Match`.
 */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type ArchiveFormat, type ByteRange, GitArchives } from "@kiln/domain/git/GitArchives"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { forgejoJson } from "../http/ErrorResponses.ts"
import { contentDisposition } from "./BlobResponse.ts"
import { requireCodeRead } from "./CodeReadGate.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

const contentTypes: Record<ArchiveFormat, string> = {
  zip: "application/zip",
  "tar.gz": "application/gzip",
  bundle: "application/octet-stream"
}

/** `<ref>.<ext>` → ref and format; undefined without a known extension. */
export const parseArchiveName = (tail: string): { readonly ref: string; readonly format: ArchiveFormat } | undefined => {
  for (const format of ["tar.gz", "zip", "bundle"] as const) {
    const suffix = `.${format}`
    if (tail.endsWith(suffix) && tail.length > suffix.length) return { ref: tail.slice(0, -suffix.length), format }
  }
  return undefined
}

/**
 * One `bytes=` range of a `size`-byte body: the range, "unsatisfiable", or undefined to send the
 * whole body (no header, several ranges, or a form not understood).
 */
export const parseRange = (header: string | undefined, size: number): ByteRange | "unsatisfiable" | undefined => {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null) return undefined
  const [, first = "", last = ""] = match
  if (first === "" && last === "") return undefined
  if (first === "") {
    const length = Number(last)
    if (length === 0) return "unsatisfiable"
    return { start: Math.max(0, size - length), end: size - 1 }
  }
  const start = Number(first)
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1)
  if (start >= size || end < start) return "unsatisfiable"
  return { start, end }
}

export const ArchiveHandlers = HandlerGroup.group(Api, "repositoryArchive", [ApiErrors], Effect.fnUntraced(function*(handlers) {
  const { errors, lookup, config } = yield* makeRepoRequests
  const archives = yield* GitArchives

  const serve = (params: { readonly owner: string; readonly repo: string }, tail: string, shortcut: ArchiveFormat | undefined) =>
    Effect.gen(function*() {
      const target = yield* lookup(params)
      yield* requireCodeRead(target)
      const parsed = shortcut === undefined ? parseArchiveName(tail) : { ref: tail, format: shortcut }
      if (parsed === undefined) return yield* errors.badRequest(`unknown format: ${tail}`)
      const { ref, format } = parsed
      const { repository, owner } = target
      const location = { owner: owner.name, name: repository.name }
      const unknownRef = errors.notFoundPlain(`unrecognized repository reference: ${ref}`)
      const commit = yield* archives.resolve(location, ref).pipe(Effect.mapError(() => unknownRef))
      const archive = yield* archives.archive({ id: repository.id, location }, commit.id, format, repository.name).pipe(
        Effect.mapError((error) =>
          error._tag === "ArchiveCacheFull" || error._tag === "ArchivesBusy"
            ? error
            : error._tag === "GitStorageFailure" ? errors.internal(error.message) : unknownRef
        )
      )
      const request = yield* HttpServerRequest.HttpServerRequest
      const apiUrl = `${config.rootUrl}api/v1/repos/${encodeURIComponent(owner.name)}/${encodeURIComponent(repository.name)}`
      const filename = `${repository.name}-${ref.replaceAll("/", "-")}.${format}`
      const etag = `"${commit.id}-${format}"`
      const headers: Record<string, string> = {
        "content-disposition": contentDisposition("attachment", filename),
        link: `<${apiUrl}/archive/${commit.id}.${format}?rev=${commit.id}>; rel="immutable"`,
        etag,
        "accept-ranges": "bytes",
        "cache-control": "private, max-age=300",
        "last-modified": new Date(commit.committedAt * 1000).toUTCString()
      }
      const ifNoneMatch = request.headers["if-none-match"]
      if (ifNoneMatch !== undefined && ifNoneMatch.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
        return HttpServerResponse.empty({ status: 304, headers })
      }
      const ifRange = request.headers["if-range"]
      const range = ifRange === undefined || ifRange === etag ? parseRange(request.headers["range"], archive.size) : undefined
      if (range === "unsatisfiable") {
        return HttpServerResponse.empty({ status: 416, headers: { ...headers, "content-range": `bytes */${archive.size}` } })
      }
      if (range === undefined) {
        return HttpServerResponse.stream(archive.read(), { headers, contentType: contentTypes[format], contentLength: archive.size })
      }
      return HttpServerResponse.stream(archive.read(range), {
        status: 206,
        headers: { ...headers, "content-range": `bytes ${range.start}-${range.end}/${archive.size}` },
        contentType: contentTypes[format],
        contentLength: range.end - range.start + 1
      })
    }).pipe(
      // Too many archives waiting: busy for now, an answer with a header like markdown's.
      Effect.catchTag("ArchivesBusy", (busy) =>
        Effect.succeed(
          forgejoJson({ message: busy.message, url: errors.url }, 503).pipe(
            HttpServerResponse.setHeader("retry-after", String(busy.retryAfterSeconds))
          )
        )),
      Effect.catchTag("ArchiveCacheFull", (full) =>
        full.transient
          // Room comes back once the archives served moments ago age out of their in-use minute.
          ? Effect.succeed(forgejoJson({ message: full.message, url: errors.url }, 503).pipe(HttpServerResponse.setHeader("retry-after", "60")))
          : Effect.fail(errors.validation(full.message)))
    )

  return handlers
    .handle("repoGetArchive", ({ params }) => serve(params, params["*"], undefined))
    .handle("repoGetZipball", ({ params }) => serve(params, params["*"], "zip"))
    .handle("repoGetTarball", ({ params }) => serve(params, params["*"], "tar.gz"))
    .handle("repoGetBundle", ({ params }) => serve(params, params["*"], "bundle"))
}))
