/**
 * The API-wide middleware that resolves the caller (token, Basic, Sudo), refuses accounts that
 * may not sign in, and enforces token scopes, in Forgejo's order (api-facts §0.2–0.4).
 */
import { Context, Effect, Layer, Option, Redacted, Result } from "effect"
import { Base64 } from "effect/encoding"
import { HttpServerRequest } from "effect/http"
import { type HttpApiEndpoint, type HttpApiGroup, HttpApiMiddleware } from "effect/http-api"
import { hasScopes, type RequiredScope, requiredScopeMessage } from "@kiln/domain/auth/AccessTokenScope"
import { Authentication as Authenticator, type Credentials, type Principal } from "@kiln/domain/auth/Authentication"
import { UserStore } from "@kiln/domain/user/UserStore"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors, ApiForbidden, ApiNotFound, ApiTooManyRequests, ApiUnauthorized } from "./ApiErrors.ts"
import { Caller } from "./Caller.ts"
import { admit } from "./ratelimit/Admission.ts"
import { RateLimiter } from "./ratelimit/RateLimiter.ts"
import { queryOf } from "./RequestTarget.ts"
import { signInOrigin, throttledResponse } from "./SignInThrottling.ts"
import { levelOf, ScopeCategories } from "./TokenScope.ts"
import { withRequest } from "./ServedRequest.ts"

export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: Caller }>()(
  "@kiln/server/Authentication",
  { error: [ApiUnauthorized, ApiForbidden, ApiNotFound, ApiTooManyRequests] }
) {}

/** `Authorization: token X` (case-sensitive word), `Bearer X` (any case) or `Basic ...`. */
export const parseAuthorization = (header: string | undefined): Option.Option<Credentials> => {
  if (header === undefined) return Option.none()
  const space = header.indexOf(" ")
  if (space < 0) return Option.none()
  const scheme = header.slice(0, space)
  const value = header.slice(space + 1).trim()
  if (scheme === "token" || scheme.toLowerCase() === "bearer") {
    return value === "" ? Option.none() : Option.some({ _tag: "Token", secret: Redacted.make(value) })
  }
  if (scheme.toLowerCase() === "basic") {
    const decoded = Base64.decodeString(value)
    if (Result.isFailure(decoded)) return Option.none()
    const colon = decoded.success.indexOf(":")
    if (colon < 0) return Option.none()
    return Option.some({
      _tag: "Basic",
      username: decoded.success.slice(0, colon),
      password: Redacted.make(decoded.success.slice(colon + 1))
    })
  }
  return Option.none()
}

const anonymous = Caller.of({ principal: Option.none() })

export const layer = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const authenticator = yield* Authenticator
    const users = yield* UserStore
    const errors = yield* ApiErrors
    const config = yield* KilnConfig
    const limiter = yield* RateLimiter

    const sudo = Effect.fnUntraced(function*(principal: Principal, target: string) {
      if (!principal.user.isAdmin) return yield* errors.forbiddenBare("Only administrators allowed to sudo.")
      const user = yield* users.findByName(target)
      if (Option.isNone(user)) return yield* errors.notFoundPlain(`user does not exist [uid: 0, name: ${target}]`)
      return { ...principal, user: user.value }
    })

    // Computed once per endpoint: a group declares its categories; an endpoint may add its own
    // (Forgejo nests the checks).
    const requiredScopes = new WeakMap<object, ReadonlyArray<RequiredScope>>()
    const requiredScopesOf = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top) => {
      const known = requiredScopes.get(endpoint)
      if (known !== undefined) return known
      const categories = new Set([...Context.get(group.annotations, ScopeCategories), ...Context.get(endpoint.annotations, ScopeCategories)])
      const required = [...categories].map((category) => ({ category, level: levelOf(endpoint.method) }))
      requiredScopes.set(endpoint, required)
      return required
    }

    const signedIn = Effect.fnUntraced(function*(
      request: HttpServerRequest.HttpServerRequest,
      credentials: Credentials,
      required: ReadonlyArray<RequiredScope>
    ) {
      let principal = yield* authenticator.authenticate(credentials, signInOrigin(request)).pipe(
        Effect.mapError((failure) => failure._tag === "SignInThrottled" ? failure : errors.unauthorized(failure.message))
      )
      const refusal = authenticator.accountRefusal(principal.user, config.rootUrl)
      if (Option.isSome(refusal)) return yield* errors.forbiddenBare(refusal.value)

      const sudoTarget = request.headers["sudo"] ??
        (request.url.includes("sudo=") ? new URLSearchParams(queryOf(request.url)).get("sudo") : null)
      if (sudoTarget) principal = yield* sudo(principal, sudoTarget)

      if (Option.isSome(principal.scopes) && !hasScopes(principal.scopes.value, required)) {
        return yield* errors.forbidden(requiredScopeMessage(required))
      }
      return Caller.of({ principal: Option.some(principal) })
    })

    return Authentication.of((httpEffect, { endpoint, group }) =>
      withRequest((request) => {
        const credentials = parseAuthorization(request.headers["authorization"])
        if (Option.isNone(credentials)) {
          return Effect.andThen(
            admit(limiter, errors.url, request, anonymous.principal, endpoint.identifier),
            Effect.provideService(httpEffect, Caller, anonymous)
          )
        }
        return Effect.flatMap(
          signedIn(request, credentials.value, requiredScopesOf(endpoint, group)),
          (caller) =>
            Effect.andThen(
              admit(limiter, errors.url, request, caller.principal, endpoint.identifier),
              Effect.provideService(httpEffect, Caller, caller)
            )
        ).pipe(
          // An answer with a header, not an API error: 429 and when to come back.
          Effect.catchTag("SignInThrottled", (throttled) => Effect.succeed(throttledResponse(throttled, errors.url)))
        )
      })
    )
  })
)
