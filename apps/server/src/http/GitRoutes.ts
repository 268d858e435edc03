/**
 * Git's smart HTTP protocol at `<root>/{owner}/{repo}(.git)/...` on the API's own server: the raw
 * Node handler of `@kiln/git` behind the access decision every git transport shares (GitAccess),
 * and every push through the path every transport shares (GitPushes).
 *
 * Credentials given are checked first (401 when wrong, 429 with too many sign-ins; 401 with
 * Forgejo's text for an account that must change its password); then GitAccess decides: 401 with
 * a Basic challenge where it asks for a sign-in, 403 for a refusal, 404 for a hidden repository,
 * 301 to the current name of a renamed one (git follows it), 413 for a push to an owner over quota.
 * Decisions are kept while the data version stands (GitDecisions.ts), but never one a password made.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { join } from "node:path"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Option, Redacted, Result } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { Authentication, type Principal } from "@kiln/domain/auth/Authentication"
import { anonymous, GitAccess, type GitRefusal, httpAccountRefusal, refusalMessage, signed } from "@kiln/domain/git/GitAccess"
import {
  type GitAccessDecision,
  type GitAccessRequest,
  makeSmartHttpHandler,
  parseSmartHttpPath,
  repositoryPath
} from "@kiln/git"
import { DataChanges } from "@kiln/domain/changes/DataChanges"
import { KilnConfig } from "../config/KilnConfig.ts"
import { decisionVersion, GitDecisions } from "../git/GitDecisions.ts"
import { GitListings } from "../git/GitListings.ts"
import { GitProcessPool } from "../git/GitProcessPool.ts"
import * as GitPushes from "../git/GitPushes.ts"
import { logRequest } from "./AccessLog.ts"
import type { DirectRoute } from "./DirectRoutes.ts"
import { anonymousGitRefusal, refuseAnonymousGit } from "./ratelimit/GitAdmission.ts"
import { RateLimiter } from "./ratelimit/RateLimiter.ts"
import { pathnameOf } from "./RequestTarget.ts"

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

/**
 * Whether `url` is a smart HTTP request that changes nothing: a ref advertisement (`info/refs`, for a
 * fetch or a push: git's first request of either) or upload-pack's negotiation (`git-upload-pack`).
 * Only `git-receive-pack` itself changes what a later answer reads.
 */
export const isSmartHttpRead = (url: string): boolean => {
  const pathname = pathnameOf(url)
  if (!isSmartHttpPath(pathname)) return false
  const action = parseSmartHttpPath(pathname)?.action
  return action === "git-upload-pack" || action === "info/refs"
}

/**
 * Forgejo's smart HTTP wording of a refusal (routers/web/repo/githttp.go): its own text for an
 * archived repository, the one every transport shares for a disabled account and a mirror. A
 * token's scope is refused with the bare status text there; a push without write access is left to
 * git's hooks there, and refused here before git starts, with the same status text.
 */
const smartHttpRefusal = (reason: GitRefusal): string => {
  switch (reason) {
    case "archived":
      return "This repo is archived. You can view files and clone it, but cannot push or open issues/pull-requests."
    case "account-disabled":
    case "mirror":
      return refusalMessage(reason)
    case "no-write-access":
    case "token-scope":
    case "public-only-token":
    case "read-only-deploy-key":
      return "Forbidden"
  }
}

export const make = Effect.gen(function*() {
  const config = yield* KilnConfig
  const authenticator = yield* Authentication
  const access = yield* GitAccess
  const pushes = yield* GitPushes.make
  const slots = yield* GitProcessPool
  const listings = yield* GitListings
  const limiter = yield* RateLimiter
  const changes = yield* DataChanges
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

  /** A decision, and whether it may be kept for the data version it was made at (GitDecisions). */
  interface Decided {
    readonly decision: GitAccessDecision
    readonly keep: boolean
  }

  const refusedSignIn = (decision: GitAccessDecision): Decided => ({ decision, keep: false })

  /**
   * An anonymous caller's decision is kept whatever it is (git's first request of every push is one,
   * always refused); a token's when allowed (a token is never guessed, so never throttled). A
   * decision reached by a password is never kept: a kept one would answer the right password while
   * the account's failed sign-ins are being throttled, and refusals of credentials must each be
   * counted.
   */
  const keeps = (principal: Option.Option<Principal>, decision: GitAccessDecision): boolean =>
    Option.match(principal, {
      onNone: () => true,
      onSome: ({ method }) => method !== "basic-password" && decision.kind === "allowed"
    })

  const decide = (request: GitAccessRequest) =>
    Effect.gen(function*() {
      const attempt = yield* Effect.result(signIn(request))
      if (Result.isFailure(attempt)) return refusedSignIn({ kind: "throttled", retryAfterSeconds: attempt.failure.retryAfterSeconds })
      if (Option.isNone(attempt.success)) return refusedSignIn({ kind: "unauthorized" })
      const principal = attempt.success.value
      const refused = Option.isSome(principal) ? httpAccountRefusal(principal.value.user) : undefined
      if (refused !== undefined) return refusedSignIn({ kind: "account-refused", message: refused })
      const decision = yield* accessOf(request, principal)
      return { decision, keep: keeps(principal, decision) } satisfies Decided
    })

  const accessOf = (request: GitAccessRequest, principal: Option.Option<Principal>) =>
    Effect.gen(function*() {
      const caller = Option.match(principal, { onNone: () => anonymous, onSome: signed })
      const decision = yield* access.decide(caller, request.owner, request.repo, request.service === "git-upload-pack" ? "read" : "write")
      switch (decision.kind) {
        case "allowed": {
          const path = repositoryPath(root, { owner: decision.target.owner.name, name: decision.target.repository.name })
          return {
            kind: "allowed",
            path,
            pusher: Option.getOrUndefined(Option.map(decision.pusher, (user) => user.id)),
            grant: request.service === "git-receive-pack" ? pushes.grantFor(decision.target) : undefined,
            // Anonymous requests share the git slots by address (GitProcessSlots); a signed-in caller answers for its own load.
            client: Option.isNone(principal) ? request.clientAddress : undefined
          } as const
        }
        case "forbidden":
          return { kind: "forbidden", message: smartHttpRefusal(decision.reason) } as const
        default:
          return decision satisfies GitAccessDecision
      }
    })

  const decisions = new GitDecisions<GitAccessDecision>({ maxEntries: 4_096, ttlMillis: 60_000 })

  const authorize = (request: GitAccessRequest): Promise<GitAccessDecision> => {
    // Read before deciding: a change committed meanwhile moves it, and the decision is not reused.
    const version = decisionVersion(changes, request.service, config.quotaEnforce, request.credentials === undefined)
    const key = version === undefined ? undefined : decisions.keyOf(request)
    const kept = key === undefined || version === undefined ? undefined : decisions.get(key, version)
    // The slots' share goes by the address of this request's anonymous caller.
    if (kept !== undefined) {
      return Promise.resolve(kept.kind === "allowed" ? { ...kept, client: request.credentials === undefined ? request.clientAddress : undefined } : kept)
    }
    // A client that leaves stops its decision: a sign-in waiting for its turn to derive a hash
    // (PasswordDerivations) leaves the queue, as the API's request fibers do when their client goes.
    return Effect.runPromiseWith(services)(decide(request), { signal: request.signal }).then(({ decision, keep }) => {
      if (keep && key !== undefined && version !== undefined) decisions.set(key, version, decision)
      return decision
    })
  }

  const handler = makeSmartHttpHandler({
    authorize,
    afterPush: pushes.afterPush,
    writeSection: pushes.writeSection,
    basePath,
    idleTimeoutMillis: config.gitIdleTimeoutSeconds * 1000,
    slots,
    listings,
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

  /**
   * The smart HTTP requests served without the application (DirectRoutes.ts), which would only log
   * them: its middleware leaves git's alone but for the client's address, the metrics and the
   * cross-site guard. So the requests those would act on go to it: all of them behind trusted
   * proxies or with metrics served, and any that carries `X-Forwarded-For` (warned about there), an
   * `Origin` or a `Sec-Fetch-Site` (which git never sends), or comes with another method than GET
   * and POST (a HEAD is answered as a GET there).
   */
  const direct: DirectRoute | undefined = config.trustedProxies.length > 0 || Option.isSome(config.metricsToken)
    ? undefined
    : (req, res) => {
      const { headers, method } = req
      if (method !== "GET" && method !== "POST") return false
      if (headers["x-forwarded-for"] !== undefined || headers.origin !== undefined || headers["sec-fetch-site"] !== undefined) return false
      const url = req.url ?? "/"
      if (!isSmartHttpPath(pathnameOf(url))) return false
      const address = req.socket.remoteAddress ?? ""
      if (config.accessLog) {
        const started = performance.now()
        res.once("close", () => logRequest(method, url, res.statusCode, started, address))
      }
      if (!refuseAnonymousGit(limiter, req, res, address === "" ? "unknown" : address)) handler(req, res)
      return true
    }

  const fallback: GitFallback = (request) => isSmartHttpPath(pathnameOf(request.url)) ? serve(request) : undefined
  return { fallback, direct, isGitPath: (url: string) => isSmartHttpPath(pathnameOf(url)) }
})
