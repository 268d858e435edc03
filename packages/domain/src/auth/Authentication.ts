/**
 * Who is calling: Forgejo's API sign-in rules (api-facts §0.2). A token in the
 * `Authorization` header, or HTTP Basic whose password is a token or the account password.
 *
 * A password sign-in is limited (SignInLimits):
 * - failed attempts are counted per client address, and per account from each address
 *   (SignInFailureKeys); an attempt is counted before its hash is derived and refused, without
 *   deriving, past either limit. A stranger failing from elsewhere never refuses the owner.
 * - a few hash derivations run at once (PasswordDerivations), the others wait their turn; checks
 *   of the same password against the same hash running at once share one (SharedVerifications).
 * - a password verified once is remembered (SignInCache, as a keyed hash, never the password) until
 *   the account changes in any process or a few minutes pass: a repeated sign-in derives nothing.
 *   The limits still hold for it, so that a remembered password cannot be guessed at any rate.
 * - an unknown account costs one derivation, as a wrong password does, so timing does not tell
 *   them apart; a login longer than any name or e-mail address is refused before any.
 * A hash made with older parameters is replaced on a successful sign-in.
 */
import { Clock, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Digest, Mac } from "effect/crypto"
import { isDisabled, type User } from "../user/User.ts"
import { EMAIL_MAX_LENGTH } from "../user/EmailAddress.ts"
import { USER_NAME_MAX_LENGTH } from "../user/UserName.ts"
import { UserStore } from "../user/UserStore.ts"
import { utf8Bytes } from "../Utf8.ts"
import { isTokenSecret, type StoredAccessToken } from "./AccessToken.ts"
import type { AccessTokenScope } from "./AccessTokenScope.ts"
import { AccessTokenStore } from "./AccessTokenStore.ts"
import { PasswordDerivations } from "./PasswordDerivations.ts"
import { PasswordHasher } from "./PasswordHasher.ts"
import { makeSharedVerifications } from "./SharedVerifications.ts"
import { SignInCache, type TokenSignIn, type VerifiedPassword } from "./SignInCache.ts"
import { failureKeys, type FailureKeys, keyList } from "./SignInFailureKeys.ts"
import { type FailureWindow, refusalMillis, SignInFailureStore } from "./SignInFailureStore.ts"
import { SignInLimits, SignInThrottled } from "./SignInLimits.ts"

/** No account's login (its name or its e-mail address) is longer. */
export const MAX_LOGIN_LENGTH = Math.max(USER_NAME_MAX_LENGTH, EMAIL_MAX_LENGTH)

export type Credentials =
  | { readonly _tag: "Token"; readonly secret: Redacted.Redacted<string> }
  | { readonly _tag: "Basic"; readonly username: string; readonly password: Redacted.Redacted<string> }

/** A signed-in caller. `scopes` is set when a token signed in (scopes restrict only tokens). */
export interface Principal {
  readonly user: User
  readonly method: "token" | "basic-token" | "basic-password" | "ssh-key"
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
  | UserStore
  | AccessTokenStore
  | PasswordHasher
  | PasswordDerivations
  | Digest.Digest
  | Mac.Mac
  | SignInCache
  | SignInFailureStore
> = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const users = yield* UserStore
    const tokens = yield* AccessTokenStore
    const hasher = yield* PasswordHasher
    const digest = yield* Digest.Digest
    const mac = yield* Mac.Mac
    const cache = yield* SignInCache
    const limits = yield* SignInLimits
    const failures = yield* SignInFailureStore
    const windowMillis = limits.failureWindowSeconds * 1000
    const derivations = yield* PasswordDerivations
    const shared = makeSharedVerifications<SignInThrottled>()
    // The secret remembered passwords are keyed with: this process's own, never stored.
    const secret = yield* Effect.orDie(mac.generateKey(Mac.hmacSha256))
    // What an unknown account's sign-in is checked against: a real hash, so it costs a real derivation.
    const standIn = yield* Effect.cached(derivations.waiting(hasher.hash(Redacted.make("no account has this password"))))

    const throttled = (retryAfterMillis: number, message: string) =>
      new SignInThrottled({ message, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMillis / 1000)) })

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

    /** What a password is remembered by: the account, its stored hash and the password, keyed. */
    const passwordInput = (userId: number, passwordHash: string, password: Redacted.Redacted<string>) =>
      new Uint8Array(utf8Bytes(`${userId}\u0000${passwordHash}\u0000${Redacted.value(password)}`))

    /** Refused (429) when a key is past its limit, the windows counting this attempt. */
    const refuseOverLimits = (windows: ReadonlyArray<FailureWindow>, keys: FailureKeys, now: number) => {
      const refusedFor = Math.max(
        refusalMillis(windows, keys.account, limits.maxFailuresPerAccount, windowMillis, now),
        keys.address === undefined ? 0 : refusalMillis(windows, keys.address, limits.maxFailuresPerAddress, windowMillis, now)
      )
      return refusedFor > 0
        ? Effect.fail(throttled(refusedFor, "too many failed sign-in attempts, please try again later"))
        : Effect.void
    }

    const unknownAccount = (login: string) => new AuthenticationFailed({ message: `user does not exist [uid: 0, name: ${login}]` })

    /** A password remembered for `login` that this one reproduces: its account, the limits permitting. */
    const rememberedSignIn = Effect.fnUntraced(function*(
      login: string,
      password: Redacted.Redacted<string>,
      address: string | undefined
    ) {
      const remembered = yield* cache.verifiedPassword(login)
      if (Option.isNone(remembered)) return Option.none<User>()
      const { passwordHash, tag, user } = remembered.value
      if (!(yield* Effect.orDie(mac.verify(secret, tag, passwordInput(user.id, passwordHash, password))))) return Option.none<User>()
      const keys = yield* failureKeys(digest, login, Option.some(user), address)
      const now = yield* Clock.currentTimeMillis
      const windows = yield* failures.openWindows(keyList(keys), windowMillis, now)
      // Refused where this attempt, counted, would be: otherwise a remembered password could be
      // guessed here at any rate, past the limits.
      yield* refuseOverLimits(windows.map((window) => ({ ...window, failures: window.failures + 1 })), keys, now)
      // The owner's own mistakes from this address are forgotten, as after a derivation (a write
      // only when there are some).
      if (windows.some((window) => window.key === keys.account && window.failures > 0)) yield* failures.forgive([keys.account], [])
      return Option.some(user)
    })

    const viaPassword = Effect.fnUntraced(function*(login: string, password: Redacted.Redacted<string>, address: string | undefined) {
      const remembered = yield* rememberedSignIn(login, password, address)
      if (Option.isSome(remembered)) return remembered.value

      // No account has a longer login, nor one with a NUL or a lone surrogate (which PostgreSQL's
      // `text` refuses): refused before any lookup or derivation, still counted.
      const unmatchable = (login.length > MAX_LOGIN_LENGTH && [...login].length > MAX_LOGIN_LENGTH) ||
        login.includes("\u0000") || !login.isWellFormed()
      const account = unmatchable ? Option.none<User>() : yield* users.findSignInCandidate(login)
      const keys = yield* failureKeys(digest, login, account, address)
      const now = yield* Clock.currentTimeMillis
      yield* refuseOverLimits(yield* failures.record(keyList(keys), windowMillis, now), keys, now)
      if (unmatchable) return yield* unknownAccount(login)

      const hash = Option.isSome(account) ? yield* users.passwordHash(account.value.id) : Option.none<string>()
      if (Option.isNone(account) || Option.isNone(hash)) {
        // The stand-in first: making it takes a turn of its own.
        const standInHash = yield* standIn
        yield* derivations.forSignIn(hasher.verify(password, standInHash))
        return yield* unknownAccount(login)
      }
      const user = account.value
      const verified = yield* cache.rememberingPassword(
        login,
        Effect.gen(function*() {
          const tag = yield* Effect.orDie(mac.sign(secret, passwordInput(user.id, hash.value, password)))
          const correct = yield* shared.share(
            tagKey(tag),
            derivations.forSignIn(hasher.verify(password, hash.value))
          )
          return correct ? Option.some<VerifiedPassword>({ user, passwordHash: hash.value, tag }) : Option.none<VerifiedPassword>()
        })
      )
      if (Option.isNone(verified)) {
        return yield* new AuthenticationFailed({ message: `user's password is invalid [uid: ${user.id}, name: ${user.name}]` })
      }
      // The owner's own mistakes from this address are forgotten; this attempt is not the address's failure.
      yield* failures.forgive([keys.account], keys.address === undefined ? [] : [keys.address])
      if (hasher.needsRehash(hash.value)) {
        // Best effort: with no turn free now, the next sign-in upgrades it.
        yield* derivations.forSignIn(hasher.hash(password)).pipe(
          Effect.flatMap((upgraded) => users.setPasswordHash(user.id, upgraded)),
          Effect.catchTag("SignInThrottled", () => Effect.void)
        )
      }
      return user
    })

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
      const user = yield* viaPassword(credentials.username, credentials.password, origin?.address)
      return { user, method: "basic-password", scopes: Option.none() } satisfies Principal
    })

    return Authentication.of({
      authenticate,
      accountRefusal: (user, rootUrl) => {
        // Forgejo refuses a deactivated account the same way (without e-mail confirmation enabled).
        if (isDisabled(user)) {
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

/** A tag as a map key. */
const tagKey = (tag: Uint8Array): string => String.fromCharCode(...tag)

/** Compares two equal-length hex digests without an early exit. */
const constantTimeEqual = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}
