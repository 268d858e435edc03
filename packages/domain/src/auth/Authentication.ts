/**
 * Who is calling: Forgejo's API sign-in rules (api-facts §0.2). A token in the
 * `Authorization` header, or HTTP Basic whose password is a token or the account password.
 */
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Digest } from "effect/crypto"
import type { User } from "../user/User.ts"
import { UserStore } from "../user/UserStore.ts"
import { isTokenSecret, type StoredAccessToken } from "./AccessToken.ts"
import type { AccessTokenScope } from "./AccessTokenScope.ts"
import { AccessTokenStore } from "./AccessTokenStore.ts"
import { PasswordHasher } from "./PasswordHasher.ts"
import { SignInCache, type TokenSignIn } from "./SignInCache.ts"

export type Credentials =
  | { readonly _tag: "Token"; readonly secret: Redacted.Redacted<string> }
  | { readonly _tag: "Basic"; readonly username: string; readonly password: Redacted.Redacted<string> }

/** A signed-in caller. `scopes` is set when a token signed in (scopes restrict only tokens). */
export interface Principal {
  readonly user: User
  readonly method: "token" | "basic-token" | "basic-password"
  readonly scopes: Option.Option<ReadonlyArray<AccessTokenScope>>
}

/** Credentials were given but do not identify an account: Forgejo's 401. */
export class AuthenticationFailed extends Schema.TaggedError<AuthenticationFailed>()("AuthenticationFailed", {
  message: Schema.String
}) {}

/** Forgejo's text for a token that matches nothing. */
export const UNKNOWN_TOKEN_MESSAGE = "user does not exist [uid: 0, name: ]"

/** Salt and secret are hex, so their characters are their bytes. */
export const tokenDigestInput = (salt: string, secret: string): Uint8Array =>
  Uint8Array.from(`${salt}${secret}`, (character) => character.charCodeAt(0))

export class Authentication extends Context.Service<Authentication, {
  readonly authenticate: (credentials: Credentials) => Effect.Effect<Principal, AuthenticationFailed>
  /**
   * Why a signed-in account may not use the API, if it may not: Forgejo answers 403 with this text.
   * `rootUrl` ends with `/`.
   */
  readonly accountRefusal: (user: User, rootUrl: string) => Option.Option<string>
}>()("@kiln/domain/auth/Authentication") {}

export const layer: Layer.Layer<
  Authentication,
  never,
  UserStore | AccessTokenStore | PasswordHasher | Digest.Digest | SignInCache
> =
  Layer.effect(
    Authentication,
    Effect.gen(function*() {
      const users = yield* UserStore
      const tokens = yield* AccessTokenStore
      const hasher = yield* PasswordHasher
      const digest = yield* Digest.Digest
      const cache = yield* SignInCache

      const matches = (token: StoredAccessToken, secret: string) =>
        Effect.map(
          digest.digestHex(Digest.sha256, tokenDigestInput(token.salt, secret)),
          (hash) => constantTimeEqual(hash, token.hash)
        )

      const verifyToken = Effect.fnUntraced(function*(secret: string) {
        for (const candidate of yield* tokens.candidates(secret.slice(-8))) {
          if (yield* matches(candidate.token, secret)) {
            return Option.some<TokenSignIn>({ user: candidate.owner, scopes: candidate.token.scopes })
          }
        }
        return Option.none<TokenSignIn>()
      })

      /** The account of a token secret, if the secret is a live token. */
      const viaToken = (secret: string): Effect.Effect<Option.Option<TokenSignIn>> =>
        isTokenSecret(secret) ? cache.signIn(secret, verifyToken(secret)) : Effect.succeed(Option.none())

      const unknownToken = new AuthenticationFailed({ message: UNKNOWN_TOKEN_MESSAGE })

      const authenticate = Effect.fnUntraced(function*(credentials: Credentials) {
        if (credentials._tag === "Token") {
          const found = yield* viaToken(Redacted.value(credentials.secret))
          if (Option.isNone(found)) return yield* unknownToken
          return { user: found.value.user, method: "token", scopes: Option.some(found.value.scopes) } satisfies Principal
        }
        const password = Redacted.value(credentials.password)
        // An empty password or `x-oauth-basic` means the user name is the token.
        if (password === "" || password === "x-oauth-basic") {
          const found = yield* viaToken(credentials.username)
          if (Option.isNone(found)) return yield* unknownToken
          return { user: found.value.user, method: "basic-token", scopes: Option.some(found.value.scopes) } satisfies Principal
        }
        const asToken = yield* viaToken(password)
        if (Option.isSome(asToken)) {
          return { user: asToken.value.user, method: "basic-token", scopes: Option.some(asToken.value.scopes) } satisfies Principal
        }
        const account = yield* users.findSignInCandidate(credentials.username)
        if (Option.isNone(account)) {
          return yield* new AuthenticationFailed({ message: `user does not exist [uid: 0, name: ${credentials.username}]` })
        }
        const hash = yield* users.passwordHash(account.value.id)
        const valid = Option.isSome(hash) && (yield* hasher.verify(credentials.password, hash.value))
        if (!valid) {
          return yield* new AuthenticationFailed({
            message: `user's password is invalid [uid: ${account.value.id}, name: ${account.value.name}]`
          })
        }
        return { user: account.value, method: "basic-password", scopes: Option.none() } satisfies Principal
      })

      return Authentication.of({
        authenticate,
        accountRefusal: (user, rootUrl) => {
          // Forgejo refuses a deactivated account the same way (without e-mail confirmation enabled).
          if (user.prohibitLogin || !user.active) {
            return Option.some("This account is prohibited from signing in, please contact your site administrator.")
          }
          if (user.mustChangePassword) {
            return Option.some(`You must change your password. Change it at: ${rootUrl}user/change_password`)
          }
          return Option.none()
        }
      })
    })
  )

/** Compares two equal-length hex digests without an early exit. */
const constantTimeEqual = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}
