/**
 * The caller of a route outside the HttpApi (downloads, the package registry): the same
 * credentials and account rules as the API's authentication middleware, without sudo.
 */
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { hasScopes, isPublicOnly, type RequiredScope, requiredScopeMessage } from "@kiln/domain/auth/AccessTokenScope"
import { Authentication as Authenticator, type Principal } from "@kiln/domain/auth/Authentication"
import { KilnConfig } from "../config/KilnConfig.ts"
import { parseAuthorization } from "../http/Authentication.ts"
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
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const credentials = parseAuthorization(request.headers["authorization"])
    if (Option.isNone(credentials)) return Option.none<Principal>()
    const principal = yield* authenticator.authenticate(credentials.value, signInOrigin(request)).pipe(
      Effect.mapError((failure): CallerRefusal =>
        failure._tag === "SignInThrottled"
          ? { status: 429, message: failure.message, headers: retryAfter(failure) }
          : { status: 401, message: failure.message })
    )
    const refusal = authenticator.accountRefusal(principal.user, config.rootUrl)
    if (Option.isSome(refusal)) return yield* Effect.fail<CallerRefusal>({ status: 403, message: refusal.value })
    return Option.some(principal)
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
