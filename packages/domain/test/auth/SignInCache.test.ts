import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import * as SignInCache from "../../src/auth/SignInCache.ts"
import { newAccount, type User } from "../../src/user/User.ts"

const user = (id: number): User => ({
  id,
  lowerName: `user${id}`,
  ...newAccount({ name: `user${id}`, kind: "individual", createdAt: 0 })
})

const signInOf = (id: number): SignInCache.TokenSignIn => ({ user: user(id), scopes: ["all"] })

/** A verification that counts how often it ran and answers `answer`. */
const counting = (answer: Option.Option<SignInCache.TokenSignIn>) => {
  let runs = 0
  return { verify: Effect.sync(() => (runs++, answer)), runs: () => runs }
}

describe("SignInCache", () => {
  it.effect("answers a repeated sign-in from memory and never remembers a refusal", () =>
    Effect.gen(function*() {
      const cache = SignInCache.make({ maxEntries: 10, ttlMillis: 1_000 })
      const known = counting(Option.some(signInOf(1)))
      assert.deepStrictEqual(yield* cache.signIn("a", known.verify), Option.some(signInOf(1)))
      assert.deepStrictEqual(yield* cache.signIn("a", known.verify), Option.some(signInOf(1)))
      assert.strictEqual(known.runs(), 1)

      const unknown = counting(Option.none())
      yield* cache.signIn("b", unknown.verify)
      yield* cache.signIn("b", unknown.verify)
      assert.strictEqual(unknown.runs(), 2)
    }))

  it.effect("forgets everything on forgetAll, and after the time limit", () =>
    Effect.gen(function*() {
      const cache = SignInCache.make({ maxEntries: 10, ttlMillis: 1_000 })
      const known = counting(Option.some(signInOf(1)))
      yield* cache.signIn("a", known.verify)
      yield* cache.forgetAll
      yield* cache.signIn("a", known.verify)
      assert.strictEqual(known.runs(), 2)

      yield* TestClock.adjust("999 millis")
      yield* cache.signIn("a", known.verify)
      assert.strictEqual(known.runs(), 2)
      yield* TestClock.adjust("1 millis")
      yield* cache.signIn("a", known.verify)
      assert.strictEqual(known.runs(), 3)
    }))

  it.effect("does not remember a verification that overlapped a change", () =>
    Effect.gen(function*() {
      const cache = SignInCache.make({ maxEntries: 10, ttlMillis: 1_000 })
      let runs = 0
      // The account changes while the verification runs: its answer may predate the change.
      const racing = Effect.sync(() => runs++).pipe(Effect.andThen(cache.forgetAll), Effect.as(Option.some(signInOf(1))))
      yield* cache.signIn("a", racing)
      yield* cache.signIn("a", racing)
      assert.strictEqual(runs, 2)
    }))

  it.effect("keeps at most maxEntries, dropping the oldest", () =>
    Effect.gen(function*() {
      const cache = SignInCache.make({ maxEntries: 2, ttlMillis: 1_000 })
      yield* cache.signIn("a", Effect.succeed(Option.some(signInOf(1))))
      yield* cache.signIn("b", Effect.succeed(Option.some(signInOf(2))))
      yield* cache.signIn("c", Effect.succeed(Option.some(signInOf(3))))
      yield* cache.signIn("c", Effect.die("c must be remembered"))
      yield* cache.signIn("b", Effect.die("b must be remembered"))
      const first = counting(Option.some(signInOf(1)))
      yield* cache.signIn("a", first.verify)
      assert.strictEqual(first.runs(), 1)
    }))

  it.effect("following changes: off until listening, forgets on a change, off again while the listener is lost", () =>
    Effect.gen(function*() {
      const { cache, onSignal } = SignInCache.makeFollowing({ maxEntries: 10, ttlMillis: 60_000 })
      const known = counting(Option.some(signInOf(1)))
      yield* cache.signIn("a", known.verify)
      yield* cache.signIn("a", known.verify)
      assert.strictEqual(known.runs(), 2, "nothing is answered from memory before listening")

      yield* onSignal({ _tag: "Listening" })
      yield* cache.signIn("a", known.verify)
      yield* cache.signIn("a", known.verify)
      assert.strictEqual(known.runs(), 3)

      yield* onSignal({ _tag: "Changed", key: "token:9" })
      yield* cache.signIn("a", known.verify)
      assert.strictEqual(known.runs(), 4, "a change forgets what was remembered")

      yield* onSignal({ _tag: "Lost" })
      yield* cache.signIn("a", known.verify)
      yield* cache.signIn("a", known.verify)
      assert.strictEqual(known.runs(), 6, "nothing is answered from memory while changes go unheard")

      yield* onSignal({ _tag: "Listening" })
      yield* cache.signIn("a", known.verify)
      yield* cache.signIn("a", known.verify)
      assert.strictEqual(known.runs(), 7)
    }))

  it.effect("remembers a verified password by login, case-insensitively, until a change, its time limit, or a lost listener", () =>
    Effect.gen(function*() {
      const { cache, onSignal } = SignInCache.makeFollowing({ maxEntries: 10, ttlMillis: 1_000, passwordTtlMillis: 300_000 })
      const verified: SignInCache.VerifiedPassword = { user: user(1), passwordHash: "scrypt$1", tag: new Uint8Array([1, 2, 3]) }
      yield* onSignal({ _tag: "Listening" })
      assert.deepStrictEqual(yield* cache.rememberingPassword("Ada", Effect.succeed(Option.some(verified))), Option.some(verified))
      assert.deepStrictEqual(yield* cache.verifiedPassword("ada"), Option.some(verified))
      // A refusal is never remembered, and does not replace what was.
      yield* cache.rememberingPassword("ADA", Effect.succeed(Option.none()))
      assert.deepStrictEqual(yield* cache.verifiedPassword("ADA"), Option.some(verified))

      yield* onSignal({ _tag: "Changed", key: "user:1" })
      assert.isTrue(Option.isNone(yield* cache.verifiedPassword("ada")), "a change forgets it")

      yield* cache.rememberingPassword("ada", Effect.succeed(Option.some(verified)))
      yield* TestClock.adjust("299999 millis")
      assert.isTrue(Option.isSome(yield* cache.verifiedPassword("ada")))
      yield* TestClock.adjust("1 millis")
      assert.isTrue(Option.isNone(yield* cache.verifiedPassword("ada")), "a few minutes at most")

      yield* cache.rememberingPassword("ada", Effect.succeed(Option.some(verified)))
      yield* onSignal({ _tag: "Lost" })
      assert.isTrue(Option.isNone(yield* cache.verifiedPassword("ada")), "off while changes go unheard")
      yield* cache.rememberingPassword("ada", Effect.succeed(Option.some(verified)))
      yield* onSignal({ _tag: "Listening" })
      assert.isTrue(Option.isNone(yield* cache.verifiedPassword("ada")), "nothing was remembered meanwhile")

      // A verification overlapping a change is not remembered.
      yield* cache.rememberingPassword("ada", Effect.as(cache.forgetAll, Option.some(verified)))
      assert.isTrue(Option.isNone(yield* cache.verifiedPassword("ada")))
    }))
})
