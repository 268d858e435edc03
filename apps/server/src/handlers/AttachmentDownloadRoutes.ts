/**
 * Where attachments download (outside the API, as Forgejo's web routes): `GET /attachments/{uuid}`
 * and `GET /{owner}/{repo}/releases/download/{tag}/{name}` (the URL a release's JSON gives when its
 * file names are unique). Whoever may read the repository's releases may download; everybody else
 * gets a 404. Tokens are held to the API's rules: `read:repository`, and public repositories only
 * for a public-only token (403 otherwise). Files stream from disk with Range support; external attachments redirect, and so
 * does an old name of a renamed repository (301, as Forgejo's web routes).
 */
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { PUBLIC_ONLY_REPO_MESSAGE } from "@kiln/domain/auth/AccessTokenScope"
import type { Principal } from "@kiln/domain/auth/Authentication"
import { type AttachmentDownload, Releases } from "@kiln/domain/release/Releases"
import { isPublicRepository, Repositories } from "@kiln/domain/repo/Repositories"
import { KilnConfig } from "../config/KilnConfig.ts"
import { NOT_FOUND_MESSAGE } from "../http/ApiErrors.ts"
import { movedLocation } from "../http/RepositoryRedirect.ts"
import { contentDisposition, fileResponse, head, sniffContentType } from "./BlobResponse.ts"
import { isPublicOnlyCaller, makeRouteCaller, requireTokenScopes } from "./RouteCaller.ts"

const httpDate = (unixSeconds: number): string => new Date(unixSeconds * 1000).toUTCString()

export const layer = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const releases = yield* Releases
  const repositories = yield* Repositories
  const config = yield* KilnConfig
  const callerOf = yield* makeRouteCaller
  const errorUrl = `${config.rootUrl}api/swagger`

  const notFound = HttpServerResponse.jsonUnsafe({ message: NOT_FOUND_MESSAGE, url: errorUrl, errors: [] }, { status: 404 })

  /** The signed-in caller, after the scope check of the API's repository routes. */
  const caller = Effect.tap(callerOf, (principal) => requireTokenScopes(principal, [{ category: "repository", level: "read" }]))
  const userOf = Option.map((principal: Principal) => principal.user)

  const serve = (download: AttachmentDownload) =>
    Effect.gen(function*() {
      if (download._tag === "External") {
        return HttpServerResponse.empty({ status: 302, headers: { location: download.url } })
      }
      const request = yield* HttpServerRequest.HttpServerRequest
      const { attachment, content } = download
      return fileResponse(content, request.headers["range"], {
        contentType: sniffContentType(yield* head(content)),
        "content-disposition": contentDisposition("inline", attachment.name),
        "access-control-expose-headers": "Content-Disposition",
        "cache-control": "private, max-age=300",
        etag: `"${attachment.uuid}"`,
        "last-modified": httpDate(attachment.createdAt)
      })
    })

  const refused = (refusal: { readonly status: number; readonly message: string; readonly headers?: Readonly<Record<string, string>> }) =>
    Effect.succeed(HttpServerResponse.jsonUnsafe({ message: refusal.message, url: errorUrl }, { status: refusal.status, headers: refusal.headers ?? {} }))

  yield* router.add("GET", "/attachments/:uuid", Effect.gen(function*() {
    const { uuid = "" } = yield* HttpRouter.params
    const principal = yield* caller
    const download = yield* releases.download(userOf(principal), uuid, isPublicOnlyCaller(principal))
    return yield* serve(download)
  }).pipe(
    Effect.catchTag("NotFound", () => Effect.succeed(notFound)),
    Effect.catchTag("Forbidden", (error) => refused({ status: 403, message: error.message })),
    Effect.catch(refused)
  ))

  yield* router.add("GET", "/:owner/:repo/releases/download/*", Effect.gen(function*() {
    const params = yield* HttpRouter.params
    // The tag may hold slashes; the file name is the last segment.
    const rest = params["*"] ?? ""
    const slash = rest.lastIndexOf("/")
    if (slash <= 0) return notFound
    const tag = decodeURIComponent(rest.slice(0, slash))
    const name = decodeURIComponent(rest.slice(slash + 1))
    const principal = yield* caller
    const target = yield* repositories.accessible(userOf(principal), params["owner"] ?? "", params["repo"] ?? "")
    if (isPublicOnlyCaller(principal) && !isPublicRepository(target)) {
      return yield* refused({ status: 403, message: PUBLIC_ONLY_REPO_MESSAGE })
    }
    return yield* serve(yield* releases.downloadByName(target, tag, name))
  }).pipe(
    Effect.catchTag("NotFound", () => Effect.succeed(notFound)),
    Effect.catchTag("RepositoryMoved", (moved) =>
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
        const location = movedLocation(config.rootUrl, request.url, "/", moved)
        return location === undefined ? notFound : HttpServerResponse.empty({ status: 301, headers: { location } })
      })),
    Effect.catch(refused)
  ))
}))
