/**
 * The caller of a route outside the HttpApi (downloads, the package registry): the same
 * credentials and account rules as the API's authentication middleware, without sudo, and the same
 * request budgets (an anonymous caller's address pays, as on the API).
 */
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { hasScopes, isPublicOnly, type RequiredScope, requiredScopeMessage } from "@kiln/domain/auth/AccessTokenScope"
import { Authentication as Authenticator, type Principal } from "@kiln/domain/auth/Authentication"
import { KilnConfig } from "../config/KilnConfig.ts"
import { parseAuthorization } from "../http/Authentication.ts"
import { reserve } from "../http/ratelimit/Admission.ts"
import { RateLimiter } from "../http/ratelimit/RateLimiter.ts"
import { retryAfter, signInOrigin } from "../http/SignInThrottling.ts"

/** Why the credentials were refused, with Forgejo's status (429 with `Retry-After` for too many sign-ins). */
export interface CallerRefusal {
  readonly status: 401 | 403 | 429
  readonly message: string
  readonly headers?: Readonly<Record<string, string>>
}

export const makeRouteCaller = Effect.gen(function*() {
  const authenticator = yield* Authenticator
  const config = yield* KilnConfig
  const limiter = yield* RateLimiter
  // `Retry-After` and the budget's headers come with the answer (RateLimitHeaders).
  const admitted = (request: HttpServerRequest.HttpServerRequest, principal: Option.Option<Principal>) => {
    const refusal = reserve(limiter, request, principal, "core")
    return refusal === undefined ? Effect.succeed(principal) : Effect.fail<CallerRefusal>({ status: 429, message: refusal })
  }
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const credentials = parseAuthorization(request.headers["authorization"])
    if (Option.isNone(credentials)) return yield* admitted(request, Option.none())
    const principal = yield* authenticator.authenticate(credentials.value, signInOrigin(request)).pipe(
      Effect.mapError((failure): CallerRefusal =>
        failure._tag === "SignInThrottled"
          ? { status: 429, message: failure.message, headers: retryAfter(failure) }
          : { status: 401, message: failure.message })
    )
    const refusal = authenticator.accountRefusal(principal.user, config.rootUrl)
    if (Option.isSome(refusal)) return yield* Effect.fail<CallerRefusal>({ status: 403, message: refusal.value })
    return yield* admitted(request, Option.some(principal))
  })
})

/** The API's scope rule for a route outside it: a token lacking the scopes is refused with Forgejo's 403. */
export const requireTokenScopes = (
  principal: Option.Option<Principal>,
  required: ReadonlyArray<RequiredScope>
): Effect.Effect<void, CallerRefusal> =>
  Option.isSome(principal) && Option.isSome(principal.value.scopes) && !hasScopes(principal.value.scopes.value, required)
    ? Effect.fail({ status: 403, message: requiredScopeMessage(required) })
    : Effect.void

/** Whether the caller signed in with a token limited to public resources. */
export const isPublicOnlyCaller = (principal: Option.Option<Principal>): boolean =>
  Option.isSome(principal) && Option.isSome(principal.value.scopes) && isPublicOnly(principal.value.scopes.value)
