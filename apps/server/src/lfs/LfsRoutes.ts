/**
 * The Git LFS API at `<root>/{owner}/{repo}(.git)/info/lfs/...` (Forgejo's routers/web/web.go):
 * the batch API with the basic transfer adapter (upload, download, verify) and the locking API.
 *
 * Who may do what is GitAccess's decision, as for git's own routes: read to download, write to
 * upload and lock (token scopes, public-only tokens, archived repositories, mirrors, disabled
 * accounts follow; an account that must change its password gets 401, as from Forgejo's web
 * middleware, unless it came with a token from `git-lfs-authenticate`), and an old name of a
 * renamed repository leads on to its current one (301 for GET, 307 for the rest so that the body
 * is sent again). Credentials: Basic (password or token), `token`/`Bearer` access tokens, and the
 * short-lived tokens of `git-lfs-authenticate`.
 *
 * Statuses and bodies are Forgejo's (services/lfs/server.go, locks.go), with these deviations,
 * each what git-lfs's API documentation asks: a caller who signed in but may not do the operation
 * gets 403 (Forgejo: 401, which makes git-lfs ask for credentials again and again); an unknown
 * lock to unlock is 404 (Forgejo: 500). A sign-in asked for is 401 with `LFS-Authenticate` and
 * `WWW-Authenticate`.
 */
import { Data, Effect, Option, Redacted, Stream } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Authentication as Authenticator } from "@kiln/domain/auth/Authentication"
import {
  anonymous,
  GitAccess,
  type GitAccessDecision,
  type GitCaller,
  type GitOperation,
  httpAccountRefusal,
  refusalMessage,
  signed
} from "@kiln/domain/git/GitAccess"
import { LfsLocks } from "@kiln/domain/lfs/LfsLocks"
import { type BatchOperation, LfsObjects } from "@kiln/domain/lfs/LfsObjects"
import type { LfsPointer } from "@kiln/domain/lfs/LfsPointer"
import { isValidPointer } from "@kiln/domain/lfs/LfsPointer"
import { isLfsToken, lfsHref, LfsTokens } from "@kiln/domain/lfs/LfsTokens"
import type { OwnedRepository } from "@kiln/domain/repo/Repository"
import type { User } from "@kiln/domain/user/User"
import { KilnConfig } from "../config/KilnConfig.ts"
import { contentDisposition, fileResponse } from "../handlers/BlobResponse.ts"
import { parseAuthorization } from "../http/Authentication.ts"
import { jsonTextProblem } from "../http/bodies/JsonTextScan.ts"
import { isStorableText } from "../http/TextInputGuard.ts"
import { reserve } from "../http/ratelimit/Admission.ts"
import { RateLimiter } from "../http/ratelimit/RateLimiter.ts"
import { retryAfter, signInOrigin } from "../http/SignInThrottling.ts"
import { acceptsLfs, batchObjectJson, lfsJson, lfsMessage, lfsStatus, lockJson } from "./LfsJson.ts"

/** Whether a path (the root URL's path stripped) is under a repository's LFS API. */
export const isLfsPath = (pathname: string): boolean => /^\/[^/]+\/[^/]+\/info\/lfs(\/|$)/.test(pathname)

const REALM = "Basic realm=\"gitea-lfs\""

/** A request refused before its handler: the answer is ready. */
class Answered extends Data.TaggedError("Answered")<{ readonly response: HttpServerResponse.HttpServerResponse }> {}

const answered = (response: HttpServerResponse.HttpServerResponse) => Effect.fail(new Answered({ response }))

/** Who asks, as the request's credentials say. */
interface LfsCaller {
  readonly caller: GitCaller
  /** Set when an LFS token signed in: the repository and operation it is bound to. */
  readonly binding: Option.Option<{ readonly repositoryId: number; readonly operation: "upload" | "download" }>
}

interface Opened {
  readonly target: OwnedRepository
  readonly user: Option.Option<User>
}

export const layer = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const config = yield* KilnConfig
  if (!config.lfs.enabled) return
  const authenticator = yield* Authenticator
  const access = yield* GitAccess
  const objects = yield* LfsObjects
  const locks = yield* LfsLocks
  const tokens = yield* LfsTokens
  const limiter = yield* RateLimiter

  const noLocksForKeys = lfsMessage(403, "a deploy key holds no locks")

  const unauthorized = (message = "Unauthorized") => lfsMessage(401, message, { "www-authenticate": REALM, "lfs-authenticate": REALM })

  const callerOf = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      const credentials = parseAuthorization(request.headers["authorization"])
      if (Option.isNone(credentials)) {
        const refusal = reserve(limiter, request, Option.none(), "core")
        if (refusal !== undefined) return yield* answered(lfsMessage(429, refusal))
        return { caller: anonymous, binding: Option.none() } satisfies LfsCaller
      }
      const given = credentials.value
      if (given._tag === "Token" && isLfsToken(Redacted.value(given.secret))) {
        const resolved = yield* tokens.resolve(Redacted.value(given.secret))
        if (Option.isNone(resolved)) return yield* answered(unauthorized())
        const { caller, token } = resolved.value
        return { caller, binding: Option.some({ repositoryId: token.repositoryId, operation: token.operation }) } satisfies LfsCaller
      }
      const principal = yield* authenticator.authenticate(given, signInOrigin(request)).pipe(
        Effect.catchTags({
          AuthenticationFailed: () => answered(unauthorized()),
          SignInThrottled: (throttled) => answered(lfsMessage(429, throttled.message, retryAfter(throttled)))
        })
      )
      // Without a challenge: asking again for the same credentials would not help.
      const refused = httpAccountRefusal(principal.user)
      if (refused !== undefined) return yield* answered(lfsMessage(401, refused))
      return { caller: signed(principal), binding: Option.none() } satisfies LfsCaller
    })

  /** Where the same request goes for the repository's current name. */
  const movedTo = (request: HttpServerRequest.HttpServerRequest, repoParam: string, owner: string, repo: string) => {
    const url = new URL(request.url, "http://internal")
    const rest = url.pathname.replace(/^\/[^/]+\/[^/]+/, "")
    const suffix = repoParam.endsWith(".git") ? ".git" : ""
    const location = `${config.rootUrl}${encodeURIComponent(owner)}/${encodeURIComponent(repo)}${suffix}${rest}${url.search}`
    return HttpServerResponse.empty({ status: request.method === "GET" ? 301 : 307, headers: { location } })
  }

  const refusal = (decision: Exclude<GitAccessDecision, { readonly kind: "allowed" }>, message: string | undefined) => {
    switch (decision.kind) {
      case "unauthorized":
        return unauthorized(message)
      case "forbidden":
        return lfsMessage(403, refusalMessage(decision.reason))
      case "not-found":
        return lfsStatus(404)
      case "quota-exceeded":
        return lfsMessage(413, "quota exceeded")
      case "moved":
        return lfsStatus(404)
    }
  }

  /**
   * The repository of the path, opened to the caller for the operation; `signedIn` for the lock
   * routes, which Forgejo keeps from anonymous callers whatever the repository.
   */
  const open = (operation: GitOperation, options: { readonly signedIn?: boolean; readonly message?: string } = {}) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const params = yield* HttpRouter.params
      const owner = params["owner"] ?? ""
      const repoParam = params["repo"] ?? ""
      const repo = repoParam.endsWith(".git") ? repoParam.slice(0, -4) : repoParam
      const caller = yield* callerOf(request)
      if (options.signedIn === true && caller.caller._tag === "Anonymous") return yield* answered(unauthorized(options.message))
      const decision = yield* access.decide(caller.caller, owner, repo, operation, { quotaSubject: "none" })
      if (decision.kind === "moved") return yield* answered(movedTo(request, repoParam, decision.owner, decision.repo))
      if (decision.kind !== "allowed") return yield* answered(refusal(decision, options.message))
      if (Option.isSome(caller.binding)) {
        const binding = caller.binding.value
        // A token opens the repository it was made for, and uploads only when made for them.
        if (binding.repositoryId !== decision.target.repository.id || (operation === "write" && binding.operation !== "upload")) {
          return yield* answered(unauthorized(options.message))
        }
      }
      // A deploy key is no account: it reads and uploads what its grant allows, and holds no locks.
      const user = caller.caller._tag === "Signed" ? Option.some(caller.caller.principal.user) : Option.none<User>()
      return { target: decision.target, user } satisfies Opened
    })

  const requireLfsAccept = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!acceptsLfs(request.headers["accept"])) return yield* answered(lfsStatus(415))
  })

  /** The JSON body, read up to KILN_HTTP_MAX_BODY_SIZE; `onBad` answers a body that is not JSON. */
  const jsonBody = (onBad: HttpServerResponse.HttpServerResponse) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const limit = config.maxBodySize
      const chunks: Array<Uint8Array> = []
      let received = 0
      yield* Stream.runForEach(request.stream, (chunk) => {
        received += chunk.byteLength
        if (received > limit) return answered(lfsMessage(413, `request body is larger than ${limit} bytes`))
        chunks.push(chunk)
        return Effect.void
      }).pipe(Effect.catchTag("HttpServerError", () => answered(lfsStatus(400))))
      const text = Buffer.concat(chunks).toString("utf8")
      if (jsonTextProblem(text) !== undefined) return yield* answered(onBad)
      try {
        const parsed: unknown = JSON.parse(text)
        return parsed
      } catch {
        return yield* answered(onBad)
      }
    })

  const linksFor = (target: OwnedRepository, request: HttpServerRequest.HttpServerRequest) => ({
    base: lfsHref(config.rootUrl, target.owner.name, target.repository.name),
    authorization: request.headers["authorization"]
  })

  const field = (value: unknown, key: string): unknown =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined

  const pointerOf = (value: unknown): LfsPointer => {
    const oid = field(value, "oid")
    const size = field(value, "size")
    return { oid: typeof oid === "string" ? oid : "", size: typeof size === "number" ? size : -1 }
  }

  const route = (handler: Effect.Effect<HttpServerResponse.HttpServerResponse, Answered, HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext>) =>
    handler.pipe(Effect.catch((failure: Answered) => Effect.succeed(failure.response)))

  const prefix = "/:owner/:repo/info/lfs"

  yield* router.add("POST", `${prefix}/objects/batch`, route(Effect.gen(function*() {
    yield* requireLfsAccept
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* jsonBody(lfsStatus(400))
    const operation = field(body, "operation")
    const listed = field(body, "objects")
    if ((operation !== "upload" && operation !== "download") || !Array.isArray(listed)) return lfsStatus(400)
    const batchOperation: BatchOperation = operation
    const { target, user } = yield* open(operation === "upload" ? "write" : "read")
    const items = yield* objects.batch(target, user, batchOperation, listed.map(pointerOf)).pipe(
      Effect.catchTags({
        LfsBatchTooLarge: () => answered(lfsStatus(413)),
        QuotaExceeded: () => answered(lfsMessage(413, "quota exceeded"))
      })
    )
    const links = linksFor(target, request)
    return lfsJson(200, { objects: items.map((item) => batchObjectJson(item, links)) })
  })))

  yield* router.add("PUT", `${prefix}/objects/:oid/:size`, route(Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const params = yield* HttpRouter.params
    const sizeText = params["size"] ?? ""
    const pointer = { oid: params["oid"] ?? "", size: /^\d{1,15}$/.test(sizeText) ? Number(sizeText) : -1 }
    if (!isValidPointer(pointer)) return lfsStatus(422)
    const { target, user } = yield* open("write")
    if (config.lfs.maxFileSize > 0 && pointer.size > config.lfs.maxFileSize) {
      return lfsMessage(422, `Size must be less than or equal to ${config.lfs.maxFileSize}`)
    }
    return yield* objects.upload(target, user, pointer, request.stream).pipe(
      Effect.as(lfsStatus(200)),
      Effect.catchTags({
        LfsContentMismatch: (mismatch) => Effect.succeed(lfsMessage(422, mismatch.message)),
        QuotaExceeded: () => Effect.succeed(lfsMessage(413, "quota exceeded")),
        HttpServerError: () => Effect.succeed(lfsStatus(400)),
        BlobStorageFailure: (failure) =>
          Effect.as(Effect.logError("LFS upload not stored", failure), lfsMessage(507, "the object could not be stored"))
      })
    )
  })))

  const download = route(Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const params = yield* HttpRouter.params
    const oid = params["oid"] ?? ""
    if (!isValidPointer({ oid, size: 0 })) return lfsMessage(422, "Oid or size are invalid")
    const { target } = yield* open("read")
    const content = yield* objects.download(target, oid).pipe(Effect.catchTag("NotFound", () => answered(lfsStatus(404))))
    const filename = params["filename"]
    const decoded = filename === undefined ? undefined : Buffer.from(filename, "base64url").toString("utf8")
    const disposition: Record<string, string> = decoded === undefined || decoded === ""
      ? {}
      : { "content-disposition": contentDisposition("attachment", decoded), "access-control-expose-headers": "Content-Disposition" }
    return fileResponse(content, request.headers["range"], { contentType: "application/octet-stream", ...disposition })
  }))
  yield* router.add("GET", `${prefix}/objects/:oid`, download)
  yield* router.add("GET", `${prefix}/objects/:oid/:filename`, download)

  yield* router.add("POST", `${prefix}/verify`, route(Effect.gen(function*() {
    yield* requireLfsAccept
    const pointer = pointerOf(yield* jsonBody(lfsStatus(422)))
    if (!isValidPointer(pointer)) return lfsMessage(422, "Oid or size are invalid")
    const { target } = yield* open("write")
    return (yield* objects.verify(target, pointer)) ? lfsStatus(200) : lfsStatus(404)
  })))

  const pageRequest = (url: URL) => {
    const limit = url.searchParams.get("limit")
    return {
      cursor: url.searchParams.get("cursor") ?? undefined,
      limit: limit !== null && /^\d{1,9}$/.test(limit) ? Number(limit) : undefined
    }
  }

  const badRequest = (invalid: { readonly message: string }) => Effect.succeed(lfsMessage(400, invalid.message))

  yield* router.add("GET", `${prefix}/locks`, route(Effect.gen(function*() {
    yield* requireLfsAccept
    const request = yield* HttpServerRequest.HttpServerRequest
    const { target } = yield* open("read", { signedIn: true, message: "You must have pull access to list locks" })
    const url = new URL(request.url, "http://internal")
    // Query values reach the database: text PostgreSQL cannot store names no lock.
    if ([...url.searchParams.values()].some((value) => !isStorableText(value))) return lfsJson(200, { locks: [] })
    return yield* locks.list(target, {
      ...pageRequest(url),
      id: url.searchParams.get("id") ?? undefined,
      path: url.searchParams.get("path") ?? undefined
    }).pipe(
      Effect.map((page) =>
        lfsJson(200, {
          locks: page.locks.map(lockJson),
          ...Option.match(page.nextCursor, { onNone: () => ({}), onSome: (next) => ({ next_cursor: next }) })
        })),
      Effect.catchTag("Invalid", badRequest)
    )
  })))

  yield* router.add("POST", `${prefix}/locks`, route(Effect.gen(function*() {
    yield* requireLfsAccept
    const { target, user } = yield* open("write", { signedIn: true, message: "You must have push access to create locks" })
    if (Option.isNone(user)) return noLocksForKeys
    const path = field(yield* jsonBody(lfsStatus(400)), "path")
    if (typeof path !== "string") return lfsStatus(400)
    return yield* locks.create(target, user.value, path).pipe(
      Effect.map((lock) => lfsJson(201, { lock: lockJson(lock) })),
      Effect.catchTags({
        LfsLockExists: (exists) => Effect.succeed(lfsJson(409, { lock: lockJson(exists.lock), message: "already created lock" })),
        Invalid: badRequest
      })
    )
  })))

  yield* router.add("POST", `${prefix}/locks/verify`, route(Effect.gen(function*() {
    yield* requireLfsAccept
    const request = yield* HttpServerRequest.HttpServerRequest
    const { target, user } = yield* open("write", { signedIn: true, message: "You must have push access to verify locks" })
    if (Option.isNone(user)) return noLocksForKeys
    const body = yield* jsonBody(lfsStatus(400))
    const cursor = field(body, "cursor")
    const limit = field(body, "limit")
    const fromQuery = pageRequest(new URL(request.url, "http://internal"))
    return yield* locks.verify(target, user.value, {
      cursor: typeof cursor === "string" ? cursor : fromQuery.cursor,
      limit: typeof limit === "number" && Number.isSafeInteger(limit) ? limit : fromQuery.limit
    }).pipe(
      Effect.map((page) =>
        lfsJson(200, {
          ours: page.ours.map(lockJson),
          theirs: page.theirs.map(lockJson),
          ...Option.match(page.nextCursor, { onNone: () => ({}), onSome: (next) => ({ next_cursor: next }) })
        })),
      Effect.catchTag("Invalid", badRequest)
    )
  })))

  yield* router.add("POST", `${prefix}/locks/:id/unlock`, route(Effect.gen(function*() {
    yield* requireLfsAccept
    const params = yield* HttpRouter.params
    const { target, user } = yield* open("write", { signedIn: true, message: "You must have push access to delete locks" })
    if (Option.isNone(user)) return noLocksForKeys
    const force = field(yield* jsonBody(lfsStatus(400)), "force") === true
    return yield* locks.unlock(target, user.value, params["id"] ?? "", force).pipe(
      Effect.map((lock) => lfsJson(200, { lock: lockJson(lock) })),
      Effect.catchTags({
        NotFound: () => Effect.succeed(lfsStatus(404)),
        Forbidden: (forbidden) => Effect.succeed(lfsMessage(403, `You must have push access to delete locks : ${forbidden.message}`))
      })
    )
  })))

  // Anything else under the LFS API: Forgejo's NotFound.
  yield* router.add("*", `${prefix}/*`, Effect.succeed(lfsStatus(404)))
}))
