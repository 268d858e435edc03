/**
 * Git's smart HTTP protocol at `<root>/{owner}/{repo}(.git)/...` on the API's own server: the raw
 * Node handler of `@kiln/git` behind Forgejo's access rules (routers/web/repo/githttp.go), and
 * after every push the repository record and the branch table brought up to date.
 *
 * Who may do what, in Forgejo's order: credentials given are checked first (401 when wrong); a
 * push to an archived repository is refused (403); reading a public repository of a public owner
 * needs nothing (no scope either), anything else a signed-in caller (401 with a Basic challenge);
 * a token needs `read:repository` to fetch and `write:repository` to push, and public-only tokens
 * stay off private repositories (403); a caller without read access gets 404, one who reads but
 * may not write gets 403 on push, and mirrors take no pushes (403). An old name of a renamed
 * repository the caller may see answers 301 to its current name (git follows it).
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { join } from "node:path"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Cause, Effect, Option, Redacted, Result } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { hasScopes, isPublicOnly } from "@kiln/domain/auth/AccessTokenScope"
import { Authentication, type Principal } from "@kiln/domain/auth/Authentication"
import { Branches } from "@kiln/domain/git/Branches"
import { atLeast } from "@kiln/domain/org/AccessMode"
import { QuotaEnforcement } from "@kiln/domain/quota/QuotaEnforcement"
import { Repositories } from "@kiln/domain/repo/Repositories"
import { RepositoryStore } from "@kiln/domain/repo/RepositoryStore"
import { UserStore } from "@kiln/domain/user/UserStore"
import { WebhookEvents } from "@kiln/domain/webhook/WebhookEvents"
import {
  type GitAccessDecision,
  type GitAccessRequest,
  makeSmartHttpHandler,
  parseSmartHttpPath,
  type Push,
  type PushTarget,
  repositoryPath
} from "@kiln/git"
import { KilnConfig } from "../config/KilnConfig.ts"
import { makeHookPayloads } from "../webhooks/HookPayloads.ts"
import { anonymousGitRefusal } from "./ratelimit/GitAdmission.ts"
import { RateLimiter } from "./ratelimit/RateLimiter.ts"

/** Answers a request the API did not route, when it is a smart HTTP request; undefined otherwise. */
export type GitFallback = (
  request: HttpServerRequest.HttpServerRequest
) => Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined

/**
 * Whether `pathname` is a smart HTTP path: `/{owner}/{repo}/info/refs`, `/{owner}/{repo}/git-upload-pack`
 * or `/{owner}/{repo}/git-receive-pack` (never an API path). Requests arrive without the root URL's
 * path, which a proxy or an embedding strips, as they do for the API.
 */
export const isSmartHttpPath = (pathname: string): boolean => {
  if (parseSmartHttpPath(pathname) === undefined) return false
  return pathname.split("/").length === (pathname.endsWith("/info/refs") ? 5 : 4)
}

const pathOf = (url: string) => new URL(url, "http://internal").pathname

const allowed = (path: string): GitAccessDecision => ({ kind: "allowed", path })
const unauthorized: GitAccessDecision = { kind: "unauthorized" }
const forbidden: GitAccessDecision = { kind: "forbidden" }
const notFound: GitAccessDecision = { kind: "not-found" }
const quotaExceeded: GitAccessDecision = { kind: "quota-exceeded" }

export const make = Effect.gen(function*() {
  const config = yield* KilnConfig
  const authenticator = yield* Authentication
  const repositories = yield* Repositories
  const store = yield* RepositoryStore
  const branches = yield* Branches
  const quotas = yield* QuotaEnforcement
  const users = yield* UserStore
  const webhookEvents = yield* WebhookEvents
  const payloads = yield* makeHookPayloads
  const limiter = yield* RateLimiter
  const services = yield* Effect.context<never>()
  const run = <A>(effect: Effect.Effect<A>) => Effect.runPromiseWith(services)(effect)
  // The same directory the GitStorage adapter keeps repositories in (Application.ts).
  const root = join(config.dataDir, "repositories")
  const basePath = new URL(config.rootUrl).pathname.replace(/\/$/, "")

  const signIn = (request: GitAccessRequest) =>
    Effect.gen(function*() {
      const { credentials } = request
      if (credentials === undefined) return Option.some(Option.none<Principal>())
      // Refused credentials are no sign-in (none); too many sign-ins stay a failure (429).
      return yield* authenticator.authenticate({
        _tag: "Basic",
        username: credentials.username,
        password: Redacted.make(credentials.password)
      }, { address: request.clientAddress }).pipe(
        Effect.map((principal) => Option.some(Option.some(principal))),
        Effect.catchTag("AuthenticationFailed", () => Effect.succeed(Option.none<Option.Option<Principal>>()))
      )
    })

  const decide = (request: GitAccessRequest) =>
    Effect.gen(function*() {
      const pull = request.service === "git-upload-pack"
      const attempt = yield* Effect.result(signIn(request))
      if (Result.isFailure(attempt)) return { kind: "throttled", retryAfterSeconds: attempt.failure.retryAfterSeconds } as const
      const signedIn = attempt.success
      if (Option.isNone(signedIn)) return unauthorized
      const principal = signedIn.value
      if (Option.isSome(principal) && Option.isSome(authenticator.accountRefusal(principal.value.user, config.rootUrl))) {
        return forbidden
      }
      const viewer = Option.map(principal, (p) => p.user)
      const found = yield* Effect.result(repositories.accessible(viewer, request.owner, request.repo))
      if (Result.isFailure(found)) {
        const { failure } = found
        if (failure._tag === "RepositoryMoved") return { kind: "moved", owner: failure.owner, repo: failure.name } as const
        // Forgejo asks anonymous callers to sign in before saying whether a repository exists.
        return Option.isNone(principal) ? unauthorized : notFound
      }
      const { repository, owner, access } = found.success
      if (repository.isArchived && !pull) return forbidden
      const path = repositoryPath(root, { owner: owner.name, name: repository.name })
      // Public reads need nothing: Forgejo checks neither permissions nor token scopes for them.
      if (pull && !repository.isPrivate && owner.visibility === "public") return allowed(path)
      if (Option.isNone(principal)) return unauthorized
      const scopes = principal.value.scopes
      if (Option.isSome(scopes)) {
        if (!hasScopes(scopes.value, [{ category: "repository", level: pull ? "read" : "write" }])) return forbidden
        if (isPublicOnly(scopes.value) && (repository.isPrivate || owner.visibility !== "public")) return forbidden
      }
      const code = access.units["repo.code"]
      const admin = atLeast(access.mode, "admin")
      if (!atLeast(code, "read") && !admin) return notFound
      if (!pull && ((!atLeast(code, "write") && !admin) || repository.isMirror)) return forbidden
      // Forgejo's githttp: a push (its advertisement as well) to an owner over quota is refused.
      if (!pull && Result.isFailure(yield* Effect.result(quotas.require(owner, "size:repos:all")))) return quotaExceeded
      return pull ? allowed(path) : { ...allowed(path), pusher: principal.value.user.id }
    })

  /**
   * A push as the repository's write section (across processes), with its branch table marked
   * pending until the push and its sync succeed. A repository without a row has no table to keep.
   */
  const writeSection = <A>(target: PushTarget, push: () => Promise<A>): Promise<A> =>
    run(Effect.gen(function*() {
      const pushing = Effect.tryPromise({ try: push, catch: (error) => error })
      const found = yield* store.find(target.owner, target.repo)
      return yield* Effect.result(Option.isNone(found) ? pushing : branches.changeSection(found.value, pushing))
    })).then((result) => Result.isSuccess(result) ? result.success : Promise.reject(result.failure))

  /**
   * One step after each push, inside its write section: the record, the branch table, then the
   * webhook deliveries of the push (in one transaction of their own). The push is git's and done
   * by now: no transaction can include it, so none is held across the branch table's git reads
   * and its lock (on the embedded database that would keep its one connection from everyone).
   */
  const afterPush = (push: Push) =>
    Effect.gen(function*() {
      const found = yield* store.find(push.owner, push.repo)
      if (Option.isNone(found)) return
      const repository = yield* repositories.recordPush(found.value.repository.id).pipe(Effect.orDie)
      const owned = { ...found.value, repository }
      yield* branches.recordPush(owned, push.updates)
      const events = Effect.gen(function*() {
        const pusher = push.pusher === undefined ? Option.none() : yield* users.findById(push.pusher)
        if (Option.isNone(pusher)) return []
        const perRef = yield* Effect.forEach(push.updates, (update) => payloads.refEvents(owned, pusher.value, update))
        return perRef.flat()
      }).pipe(
        // The push happened whatever its payloads.
        Effect.catchCause((cause) => Effect.as(Effect.logError("webhook events of a push not built", Cause.pretty(cause)), []))
      )
      yield* webhookEvents.emitBuilt({ repositoryId: repository.id, ownerId: owned.owner.id }, events)
    })

  const handler = makeSmartHttpHandler({
    authorize: (request) => run(decide(request)),
    afterPush: (push) => run(afterPush(push)),
    writeSection,
    basePath,
    idleTimeoutMillis: config.gitIdleTimeoutSeconds * 1000,
    onError: (error, request) =>
      void run(Effect.logError(`git smart HTTP failed for ${request.owner}/${request.repo}`, error))
  })

  const serve = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      const refusal = anonymousGitRefusal(limiter, request)
      if (refusal !== undefined) return refusal
      // The raw Node objects of this request: this module runs on NodeHttpServer only.
      const req = NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage
      const res = NodeHttpServerRequest.toServerResponse(request) as ServerResponse
      // The client as the forwarded-header middleware resolved it (KILN_TRUSTED_PROXIES), as for the API.
      const clientAddress = Option.getOrUndefined(request.remoteAddress)
      yield* Effect.callback<void>((resume) => {
        res.once("close", () => resume(Effect.void))
        handler(req, res, clientAddress)
      })
      // Not written (the Node response has ended); carries the status for the access log.
      return HttpServerResponse.empty({ status: res.statusCode })
    })

  const fallback: GitFallback = (request) => isSmartHttpPath(pathOf(request.url)) ? serve(request) : undefined
  return { fallback, isGitPath: (url: string) => isSmartHttpPath(pathOf(url)) }
})
