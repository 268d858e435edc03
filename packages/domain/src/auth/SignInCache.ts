/**
 * Token sign-ins verified recently. API clients send the same token on every request; answering a
 * repeated one from memory saves a query and a digest per request.
 *
 * Exactness: several processes may serve one database. `forgettingStores` wraps the writes that
 * can change a token sign-in (account edits and removals, token removals): each one publishes a
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

export interface SignInCacheOptions {
  readonly maxEntries: number
  readonly ttlMillis: number
}

export const defaultOptions: SignInCacheOptions = { maxEntries: 10_000, ttlMillis: 30_000 }

export class SignInCache extends Context.Service<SignInCache, {
  /** The remembered sign-in of `secret`, or `verify`'s answer, remembered when it is one. */
  readonly signIn: <E>(
    secret: string,
    verify: Effect.Effect<Option.Option<TokenSignIn>, E>
  ) => Effect.Effect<Option.Option<TokenSignIn>, E>
  /** Forgets every remembered sign-in. */
  readonly forgetAll: Effect.Effect<void>
}>()("@kiln/domain/auth/SignInCache") {}

interface Entry {
  readonly signIn: TokenSignIn
  readonly expiresAt: number
}

/** The Changes topic of writes that can change a token sign-in; keys are `user:<id>` or `token:<id>`. */
export const topic = "sign-in"

/** A cache that is on until told otherwise (one process, nothing else writes). */
export const make = (options: SignInCacheOptions): SignInCache["Service"] => makeFollowing(options, true).cache

/**
 * A cache following the changes of `topic`: `onSignal` forgets on every change and turns the cache
 * off between `Lost` and `Listening`. Starts off unless `on`.
 */
export const makeFollowing = (options: SignInCacheOptions, on = false) => {
  // A Map iterates in insertion order: its first key is the oldest entry.
  const entries = new Map<string, Entry>()
  let generation = 0
  let listening = on
  const forget = () => {
    generation++
    entries.clear()
  }

  const remember = (secret: string, signIn: TokenSignIn, now: number) => {
    entries.delete(secret)
    if (entries.size >= options.maxEntries) {
      const oldest = entries.keys().next()
      if (oldest.done !== true) entries.delete(oldest.value)
    }
    entries.set(secret, { signIn, expiresAt: now + options.ttlMillis })
  }

  const cache = SignInCache.of({
    signIn: (secret, verify) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (!listening) return verify
        const entry = entries.get(secret)
        if (entry !== undefined && entry.expiresAt > now) return Effect.succeed(Option.some(entry.signIn))
        if (entry !== undefined) entries.delete(secret)
        const startedIn = generation
        return Effect.map(verify, (found) => {
          if (Option.isSome(found) && listening && generation === startedIn) remember(secret, found.value, now)
          return found
        })
      }),
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
