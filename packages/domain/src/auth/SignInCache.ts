/**
 * Token sign-ins verified recently. API clients send the same token on every request; answering a
 * repeated one from memory saves a query and a digest per request.
 *
 * Exactness: one server process serves a data dir, so every change to an account or a token goes
 * through this process's stores. `forgettingStores` wraps the writes that can change a token
 * sign-in (account edits and removals, token removals) so that each one forgets every entry — such
 * writes are rare next to sign-ins. A verification that was running while a write happened is not
 * remembered, since it may have read the state before the write. Entries also expire after a short
 * time and the number kept is bounded.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
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

export const make = (options: SignInCacheOptions): SignInCache["Service"] => {
  // A Map iterates in insertion order: its first key is the oldest entry.
  const entries = new Map<string, Entry>()
  let generation = 0

  const remember = (secret: string, signIn: TokenSignIn, now: number) => {
    entries.delete(secret)
    if (entries.size >= options.maxEntries) {
      const oldest = entries.keys().next()
      if (oldest.done !== true) entries.delete(oldest.value)
    }
    entries.set(secret, { signIn, expiresAt: now + options.ttlMillis })
  }

  return SignInCache.of({
    signIn: (secret, verify) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const entry = entries.get(secret)
        if (entry !== undefined && entry.expiresAt > now) return Effect.succeed(Option.some(entry.signIn))
        if (entry !== undefined) entries.delete(secret)
        const startedIn = generation
        return Effect.map(verify, (found) => {
          if (Option.isSome(found) && generation === startedIn) remember(secret, found.value, now)
          return found
        })
      }),
    forgetAll: Effect.sync(() => {
      generation++
      entries.clear()
    })
  })
}

export const layer = (options: SignInCacheOptions = defaultOptions): Layer.Layer<SignInCache> =>
  Layer.sync(SignInCache, () => make(options))

/**
 * The account and token stores, each write that can change a token sign-in followed by forgetting
 * every remembered one (also when the write fails: it may have changed something before failing).
 * Account writes are not part of longer transactions; one that were would have to forget after
 * its commit instead.
 */
export const forgettingStores: Layer.Layer<UserStore | AccessTokenStore, never, UserStore | AccessTokenStore | SignInCache> =
  Layer.effectContext(Effect.gen(function*() {
    const users = yield* UserStore
    const tokens = yield* AccessTokenStore
    const cache = yield* SignInCache
    const forgetting = <A, E>(write: Effect.Effect<A, E>) => Effect.ensuring(write, cache.forgetAll)
    return Context.make(UserStore, {
      ...users,
      update: (id, changes) => forgetting(users.update(id, changes)),
      setPasswordHash: (id, hash) => forgetting(users.setPasswordHash(id, hash)),
      remove: (id) => forgetting(users.remove(id))
    }).pipe(Context.add(AccessTokenStore, { ...tokens, remove: (id) => forgetting(tokens.remove(id)) }))
  }))
