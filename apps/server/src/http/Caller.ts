/** The caller of the current request, as the authentication middleware resolved it. */
import { Context, Effect, Option } from "effect"
import type { Principal } from "@kiln/domain/auth/Authentication"
import type { User } from "@kiln/domain/user/User"
import { ApiErrors, type ApiForbidden, type ApiUnauthorized } from "./ApiErrors.ts"

export class Caller extends Context.Service<Caller, {
  /** None for anonymous requests. */
  readonly principal: Option.Option<Principal>
}>()("@kiln/server/Caller") {}

/** The signed-in user, if any. */
export const currentUser: Effect.Effect<Option.Option<User>, never, Caller> = Effect.map(
  Effect.service(Caller),
  (caller) => Option.map(caller.principal, (principal) => principal.user)
)

/** Forgejo's `reqToken`: anonymous callers get 401 `token is required`. */
export const requireSignedIn: Effect.Effect<Principal, ApiUnauthorized, Caller | ApiErrors> = Effect.gen(function*() {
  const caller = yield* Caller
  if (Option.isSome(caller.principal)) return caller.principal.value
  const errors = yield* ApiErrors
  return yield* errors.unauthorized("token is required")
})

/** Forgejo's `reqSiteAdmin`. */
export const requireSiteAdmin: Effect.Effect<Principal, ApiUnauthorized | ApiForbidden, Caller | ApiErrors> = Effect.gen(
  function*() {
    const principal = yield* requireSignedIn
    if (principal.user.isAdmin) return principal
    const errors = yield* ApiErrors
    return yield* errors.forbidden("user should be the site admin")
  }
)
