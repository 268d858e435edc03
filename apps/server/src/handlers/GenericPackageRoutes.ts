/**
 * Forgejo's generic package registry at `/api/packages/{owner}/generic/{name}/{version}/{file}`
 * [routers/api/packages/api.go, generic/generic.go]: PUT uploads (201, streamed to disk), GET
 * downloads (Range supported), DELETE removes a file or, without the file name, a whole version.
 * Answers are plain text as Forgejo's; a caller without the access the route needs (or a token
 * without the package scope) gets 401 with a Basic challenge.
 */
import { Data, Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { hasScopes, isPublicOnly, PUBLIC_ONLY_PACKAGE_MESSAGE, scopeLevelForMethod } from "@kiln/domain/auth/AccessTokenScope"
import type { Principal } from "@kiln/domain/auth/Authentication"
import { atLeast } from "@kiln/domain/org/AccessMode"
import { PACKAGE_ACCESS_MESSAGE, Packages } from "@kiln/domain/package/Packages"
import { QuotaEnforcement } from "@kiln/domain/quota/QuotaEnforcement"
import type { User } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import { KilnConfig } from "../config/KilnConfig.ts"
import { QUOTA_EXCEEDED_MESSAGE } from "../http/QuotaGate.ts"
import { contentDisposition, fileResponse } from "./BlobResponse.ts"
import { type CallerRefusal, makeRouteCaller } from "./RouteCaller.ts"

const text = (status: number, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(message, { status, headers })

const unauthorized = text(401, PACKAGE_ACCESS_MESSAGE, { "www-authenticate": "Basic realm=\"Gitea Package API\"" })

/** A failure of a registry route, already rendered. */
class Refused extends Data.TaggedError("Refused")<{ readonly response: HttpServerResponse.HttpServerResponse }> {}

export const layer = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const packages = yield* Packages
  const quotas = yield* QuotaEnforcement
  const users = yield* UserStore
  const config = yield* KilnConfig
  const callerOf = yield* makeRouteCaller

  /** The caller and the path's owner, after Forgejo's token checks for package routes. */
  const context = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const principal: Option.Option<Principal> = yield* callerOf.pipe(
      Effect.mapError((refusal: CallerRefusal) =>
        new Refused({ response: text(refusal.status, refusal.message).pipe(HttpServerResponse.setHeaders(refusal.headers ?? {})) }))
    )
    const { owner: ownerName = "" } = yield* HttpRouter.params
    const owner = yield* users.findByName(ownerName)
    if (Option.isNone(owner)) return yield* new Refused({ response: text(404, `user does not exist [uid: 0, name: ${ownerName}]`) })
    if (Option.isSome(principal) && Option.isSome(principal.value.scopes)) {
      const scopes = principal.value.scopes.value
      if (!hasScopes(scopes, [{ category: "package", level: scopeLevelForMethod(request.method) }])) {
        return yield* new Refused({ response: unauthorized })
      }
      // Not only private owners (Forgejo's rule): a limited owner's packages are not public either.
      if (isPublicOnly(scopes) && owner.value.visibility !== "public") {
        return yield* new Refused({ response: text(403, PUBLIC_ONLY_PACKAGE_MESSAGE) })
      }
    }
    const caller: Option.Option<User> = Option.map(principal, (signedIn) => signedIn.user)
    return { caller, owner: owner.value, request }
  })

  const path = Effect.map(HttpRouter.params, (params) => ({
    name: params["name"] ?? "",
    version: params["version"] ?? "",
    fileName: params["filename"] ?? ""
  }))

  const failure = (error: { readonly _tag: string; readonly message?: string; readonly limit?: number }) => {
    switch (error._tag) {
      case "Refused":
        return error instanceof Refused ? error.response : text(500, "")
      case "Forbidden":
        return unauthorized
      case "Invalid":
        return text(400, error.message ?? "")
      case "NotFound":
        return text(404, error.message ?? "")
      case "AlreadyExists":
        return text(409, error.message ?? "")
      case "BlobTooLarge":
        return text(413, `package file is larger than ${error.limit ?? config.attachmentMaxSize} bytes`)
      case "RequestError":
        return text(400, "the request body could not be read")
      default:
        return text(500, error.message ?? "")
    }
  }

  const route = <E extends { readonly _tag: string }, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    handler.pipe(Effect.catch((error) => Effect.succeed(failure(error))))

  const file = "/api/packages/:owner/generic/:name/:version/:filename"

  yield* router.add("PUT", file, route(Effect.gen(function*() {
    const { caller, owner, request } = yield* context
    // Forgejo's enforcePackagesQuota, after the write check, before the body is read.
    if (Option.isSome(caller) && atLeast(yield* packages.access(caller, owner), "write")) {
      yield* quotas.require(owner, "size:assets:packages:all").pipe(
        Effect.mapError(() => new Refused({ response: text(413, QUOTA_EXCEEDED_MESSAGE) }))
      )
    }
    yield* packages.upload(caller, owner, yield* path, request.stream, config.attachmentMaxSize)
    return HttpServerResponse.empty({ status: 201 })
  })))

  yield* router.add("GET", file, route(Effect.gen(function*() {
    const { caller, owner, request } = yield* context
    const { file: stored, content } = yield* packages.download(caller, owner, yield* path)
    return fileResponse(content, request.headers["range"], {
      contentType: "application/octet-stream",
      "content-disposition": contentDisposition("attachment", stored.name),
      "access-control-expose-headers": "Content-Disposition",
      "cache-control": "private, max-age=300",
      "last-modified": new Date(stored.createdAt * 1000).toUTCString()
    })
  })))

  yield* router.add("DELETE", file, route(Effect.gen(function*() {
    const { caller, owner } = yield* context
    yield* packages.removeFile(caller, owner, yield* path)
    return HttpServerResponse.empty({ status: 204 })
  })))

  yield* router.add("DELETE", "/api/packages/:owner/generic/:name/:version", route(Effect.gen(function*() {
    const { caller, owner } = yield* context
    const { name, version } = yield* path
    yield* packages.removeVersion(caller, owner, name, version)
    return HttpServerResponse.empty({ status: 204 })
  })))
}))
