/**
 * Sign-ins verified recently. API clients send the same token on every request; answering a
 * repeated one from memory saves a query and a digest per request. Git and scripts send the same
 * password on every request; answering a repeated one from memory saves a password derivation
 * (a few hundred ms and 128 MiB) per request. A password is never kept: only which account signed
 * in with which login, the stored hash it was checked against, and a keyed hash (HMAC under a
 * secret of the process) of the account, that hash and the password, which the next request's
 * password must reproduce.
 *
 * Exactness: several processes may serve one database. `forgettingStores` wraps the writes that
 * can change a sign-in (account edits, among them its sign-in rights, new passwords, removals of
 * accounts and tokens): each one publishes a
 * change of `topic` in its transaction, which makes every process's cache forget every entry at
 * commit, and forgets here at once too — such writes are rare next to sign-ins. While a process
 * does not hear changes (its listener is starting or disconnected) its cache is off: nothing is
 * answered from memory or remembered. A verification that was running while a change arrived is
 * not remembered, since it may have read the state before the write. Entries also expire after a
 * short time and the number kept is bounded.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { type ChangeSignal, Changes } from "../coordination/Changes.ts"
import { Transactions } from "../repo/Transactions.ts"
import type { User } from "../user/User.ts"
import { UserStore } from "../user/UserStore.ts"
import type { AccessTokenScope } from "./AccessTokenScope.ts"
import { AccessTokenStore } from "./AccessTokenStore.ts"

/** What a live token secret signs in as. */
export interface TokenSignIn {
  readonly user: User
  readonly scopes: ReadonlyArray<AccessTokenScope>
}

/** A password sign-in verified before, as remembered: never the password itself. */
export interface VerifiedPassword {
  readonly user: User
  /** The stored hash the password was verified against. */
  readonly passwordHash: string
  /** HMAC, under a secret of this process, of the account, that hash and the password. */
  readonly tag: Uint8Array
}

export interface SignInCacheOptions {
  /** Entries of each kind (tokens, passwords) kept at most. */
  readonly maxEntries: number
  readonly ttlMillis: number
  /** How long a verified password is remembered at most; 5 minutes when absent. */
  readonly passwordTtlMillis?: number
}

export const defaultOptions: SignInCacheOptions = { maxEntries: 10_000, ttlMillis: 30_000, passwordTtlMillis: 300_000 }

export class SignInCache extends Context.Service<SignInCache, {
  /** The remembered sign-in of `secret`, or `verify`'s answer, remembered when it is one. */
  readonly signIn: <E>(
    secret: string,
    verify: Effect.Effect<Option.Option<TokenSignIn>, E>
  ) => Effect.Effect<Option.Option<TokenSignIn>, E>
  /** The password sign-in remembered for `login` (case-insensitive), if one is. */
  readonly verifiedPassword: (login: string) => Effect.Effect<Option.Option<VerifiedPassword>>
  /** `verify`'s answer, remembered for `login` when it is one. */
  readonly rememberingPassword: <E, R>(
    login: string,
    verify: Effect.Effect<Option.Option<VerifiedPassword>, E, R>
  ) => Effect.Effect<Option.Option<VerifiedPassword>, E, R>
  /** Forgets every remembered sign-in. */
  readonly forgetAll: Effect.Effect<void>
}>()("@kiln/domain/auth/SignInCache") {}

interface Entry<A> {
  readonly value: A
  readonly expiresAt: number
}

/** Entries by key, the oldest first out when full (a Map iterates in insertion order). */
const makeEntries = <A>(maxEntries: number) => {
  const entries = new Map<string, Entry<A>>()
  return {
    get: (key: string, now: number): A | undefined => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.expiresAt > now) return entry.value
      entries.delete(key)
      return undefined
    },
    set: (key: string, value: A, expiresAt: number) => {
      entries.delete(key)
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next()
        if (oldest.done !== true) entries.delete(oldest.value)
      }
      entries.set(key, { value, expiresAt })
    },
    clear: () => entries.clear()
  }
}

/** The Changes topic of writes that can change a sign-in; keys are `user:<id>` or `token:<id>`. */
export const topic = "sign-in"

/** A cache that is on until told otherwise (one process, nothing else writes). */
export const make = (options: SignInCacheOptions): SignInCache["Service"] => makeFollowing(options, true).cache

/**
 * A cache following the changes of `topic`: `onSignal` forgets on every change and turns the cache
 * off between `Lost` and `Listening`. Starts off unless `on`.
 */
export const makeFollowing = (options: SignInCacheOptions, on = false) => {
  const tokens = makeEntries<TokenSignIn>(options.maxEntries)
  const passwords = makeEntries<VerifiedPassword>(options.maxEntries)
  const passwordTtlMillis = options.passwordTtlMillis ?? 300_000
  let generation = 0
  let listening = on
  const forget = () => {
    generation++
    tokens.clear()
    passwords.clear()
  }

  /** `verify`'s answer, remembered unless a change arrived meanwhile (it may have read the state before it). */
  const remembering = <A, E, R>(
    verify: Effect.Effect<Option.Option<A>, E, R>,
    remember: (value: A, now: number) => void
  ) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (!listening) return verify
      const startedIn = generation
      return Effect.map(verify, (found) => {
        if (Option.isSome(found) && listening && generation === startedIn) remember(found.value, now)
        return found
      })
    })

  const cache = SignInCache.of({
    signIn: (secret, verify) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const known = listening ? tokens.get(secret, now) : undefined
        if (known !== undefined) return Effect.succeed(Option.some(known))
        return remembering(verify, (signIn, startedAt) => tokens.set(secret, signIn, startedAt + options.ttlMillis))
      }),
    verifiedPassword: (login) =>
      Effect.map(Clock.currentTimeMillis, (now) => Option.fromUndefinedOr(listening ? passwords.get(login.toLowerCase(), now) : undefined)),
    rememberingPassword: (login, verify) =>
      remembering(verify, (verified, startedAt) => passwords.set(login.toLowerCase(), verified, startedAt + passwordTtlMillis)),
    forgetAll: Effect.sync(forget)
  })
  const onSignal = (signal: ChangeSignal): Effect.Effect<void> =>
    Effect.sync(() => {
      // Whatever was remembered before a change, or while changes went unheard, may be stale.
      forget()
      listening = signal._tag !== "Lost"
    })
  return { cache, onSignal }
}

/** The cache, following this process's Changes until the layer's scope closes. */
export const layer = (options: SignInCacheOptions = defaultOptions): Layer.Layer<SignInCache, never, Changes> =>
  Layer.effect(SignInCache, Effect.gen(function*() {
    const { cache, onSignal } = makeFollowing(options)
    yield* (yield* Changes).subscribe(topic, onSignal)
    return cache
  }))

/**
 * The account and token stores, each write that can change a token sign-in publishing its change
 * in the write's transaction (every process forgets at commit) and forgetting here when it ends
 * (also when it fails: it may have changed something before failing).
 */
export const forgettingStores: Layer.Layer<
  UserStore | AccessTokenStore,
  never,
  UserStore | AccessTokenStore | SignInCache | Changes | Transactions
> = Layer.effectContext(Effect.gen(function*() {
  const users = yield* UserStore
  const tokens = yield* AccessTokenStore
  const cache = yield* SignInCache
  const changes = yield* Changes
  const transactions = yield* Transactions
  const forgetting = <A, E>(key: string, write: Effect.Effect<A, E>) =>
    transactions.run(Effect.tap(write, () => changes.publish(topic, key))).pipe(Effect.ensuring(cache.forgetAll))
  return Context.make(UserStore, {
    ...users,
    update: (id, changes) => forgetting(`user:${id}`, users.update(id, changes)),
    setPasswordHash: (id, hash) => forgetting(`user:${id}`, users.setPasswordHash(id, hash)),
    remove: (id) => forgetting(`user:${id}`, users.remove(id))
  }).pipe(Context.add(AccessTokenStore, { ...tokens, remove: (id) => forgetting(`token:${id}`, tokens.remove(id)) }))
}))
