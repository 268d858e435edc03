/**
 * Who is calling: Forgejo's API sign-in rules (api-facts §0.2). A token in the
 * `Authorization` header, or HTTP Basic whose password is a token or the account password.
 *
 * A password sign-in is limited (SignInLimits): a few hash derivations at once
 * (PasswordDerivations), the others waiting briefly; failed attempts counted per account and per
 * client address, refused for the rest of their window once past the limit, before any hash is
 * derived. An unknown account costs one derivation, as a wrong password does, so timing does not
 * tell them apart. A hash made with older parameters is replaced on a successful sign-in.
 */
import { Clock, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Digest } from "effect/crypto"
import type { User } from "../user/User.ts"
import { UserStore } from "../user/UserStore.ts"
import { isTokenSecret, type StoredAccessToken } from "./AccessToken.ts"
import type { AccessTokenScope } from "./AccessTokenScope.ts"
import { AccessTokenStore } from "./AccessTokenStore.ts"
import { PasswordDerivations } from "./PasswordDerivations.ts"
import { PasswordHasher } from "./PasswordHasher.ts"
import { SignInCache, type TokenSignIn } from "./SignInCache.ts"
import { refusalMillis, SignInFailureStore } from "./SignInFailureStore.ts"
import { SignInLimits, SignInThrottled } from "./SignInLimits.ts"

export type Credentials =
  | { readonly _tag: "Token"; readonly secret: Redacted.Redacted<string> }
  | { readonly _tag: "Basic"; readonly username: string; readonly password: Redacted.Redacted<string> }

/** A signed-in caller. `scopes` is set when a token signed in (scopes restrict only tokens). */
export interface Principal {
  readonly user: User
  readonly method: "token" | "basic-token" | "basic-password"
  readonly scopes: Option.Option<ReadonlyArray<AccessTokenScope>>
}

/** Where a sign-in comes from: the client's address, when known. */
export interface SignInOrigin {
  readonly address: string | undefined
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
  readonly authenticate: (
    credentials: Credentials,
    origin?: SignInOrigin
  ) => Effect.Effect<Principal, AuthenticationFailed | SignInThrottled>
  /**
   * Why a signed-in account may not use the API, if it may not: Forgejo answers 403 with this text.
   * `rootUrl` ends with `/`.
   */
  readonly accountRefusal: (user: User, rootUrl: string) => Option.Option<string>
}>()("@kiln/domain/auth/Authentication") {}

export const layer: Layer.Layer<
  Authentication,
  never,
  UserStore | AccessTokenStore | PasswordHasher | PasswordDerivations | Digest.Digest | SignInCache | SignInFailureStore
> =
  Layer.effect(
    Authentication,
    Effect.gen(function*() {
      const users = yield* UserStore
      const tokens = yield* AccessTokenStore
      const hasher = yield* PasswordHasher
      const digest = yield* Digest.Digest
      const cache = yield* SignInCache
      const limits = yield* SignInLimits
      const failures = yield* SignInFailureStore
      const windowMillis = limits.failureWindowSeconds * 1000
      const derivations = yield* PasswordDerivations
      // What an unknown account's sign-in is checked against: a real hash, so it costs a real derivation.
      const standIn = yield* Effect.cached(derivations.waiting(hasher.hash(Redacted.make("no account has this password"))))

      const throttled = (retryAfterMillis: number, message: string) =>
        new SignInThrottled({ message, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMillis / 1000)) })

      const derivation = derivations.forSignIn

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

      const authenticate = Effect.fnUntraced(function*(credentials: Credentials, origin?: SignInOrigin) {
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
        const accountKey = Option.match(account, {
          onNone: () => `name:${credentials.username.toLowerCase()}`,
          onSome: (user) => `account:${user.id}`
        })
        const addressKey = origin?.address === undefined ? undefined : `address:${origin.address}`
        const keys = addressKey === undefined ? [accountKey] : [accountKey, addressKey]
        const now = yield* Clock.currentTimeMillis
        const windows = yield* failures.openWindows(keys, windowMillis, now)
        const refusedFor = Math.max(
          refusalMillis(windows, accountKey, limits.maxFailuresPerAccount, windowMillis, now),
          addressKey === undefined ? 0 : refusalMillis(windows, addressKey, limits.maxFailuresPerAddress, windowMillis, now)
        )
        if (refusedFor > 0) return yield* throttled(refusedFor, "too many failed sign-in attempts, please try again later")

        const hash = Option.isSome(account) ? yield* users.passwordHash(account.value.id) : Option.none<string>()
        const checkedAgainst = Option.isSome(hash) ? hash.value : yield* standIn
        const matches = yield* derivation(hasher.verify(credentials.password, checkedAgainst))
        if (Option.isNone(account) || Option.isNone(hash) || !matches) {
          yield* failures.record(keys, windowMillis, yield* Clock.currentTimeMillis)
          return yield* new AuthenticationFailed({
            message: Option.match(account, {
              onNone: () => `user does not exist [uid: 0, name: ${credentials.username}]`,
              onSome: (user) => `user's password is invalid [uid: ${user.id}, name: ${user.name}]`
            })
          })
        }
        yield* failures.clear(accountKey)
        if (hasher.needsRehash(hash.value)) {
          // Best effort: with no turn free now, the next sign-in upgrades it.
          yield* derivation(hasher.hash(credentials.password)).pipe(
            Effect.flatMap((upgraded) => users.setPasswordHash(account.value.id, upgraded)),
            Effect.catchTag("SignInThrottled", () => Effect.void)
          )
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
