/**
 * Password sign-in on the real stores (the test database) and the real scrypt hasher, counted: a
 * password verified once is not derived again, concurrent checks of one password share one
 * derivation, a change of the account is seen at once, the failure limits hold for a remembered
 * password too and never refuse the owner from a clean address, and an overlong login costs no
 * derivation at all.
 */
import { assert, layer } from "@effect/vitest"
import { Clock, Context, Deferred, Effect, Exit, Fiber, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as AuthenticationLive from "@kiln/domain/auth/Authentication"
import { Authentication, type Credentials } from "@kiln/domain/auth/Authentication"
import * as PasswordDerivations from "@kiln/domain/auth/PasswordDerivations"
import { PasswordHasher } from "@kiln/domain/auth/PasswordHasher"
import { SignInFailureStore } from "@kiln/domain/auth/SignInFailureStore"
import { SignInLimits, type SignInLimitsShape } from "@kiln/domain/auth/SignInLimits"
import { newAccount } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import * as TestServer from "../support/TestServer.ts"

interface Counts {
  /** Password derivations of sign-ins (verify), stand-in and new hashes aside. */
  derivations: number
  /** Stored hashes read, the last step before a derivation. */
  hashesRead: number
}

/**
 * An Authentication of its own over the application's stores, its hasher and hash reads counted,
 * every derivation first waiting for `gate` when one is given, and failures counted by `failures`
 * when given.
 */
const authentication = (
  counts: Counts,
  limits: Partial<SignInLimitsShape> = {},
  gate?: Deferred.Deferred<void>,
  failures: Layer.Layer<SignInFailureStore, never, SignInFailureStore> = Layer.effect(SignInFailureStore, Effect.service(SignInFailureStore))
) =>
  Effect.gen(function*() {
    const counting = Layer.effect(PasswordHasher, Effect.map(Effect.service(PasswordHasher), (real) => PasswordHasher.of({
      ...real,
      verify: (password, hash) =>
        Effect.sync(() => counts.derivations++).pipe(
          Effect.andThen(gate === undefined ? Effect.void : Deferred.await(gate)),
          Effect.andThen(real.verify(password, hash))
        )
    })))
    const reading = Layer.effect(UserStore, Effect.map(Effect.service(UserStore), (real) => UserStore.of({
      ...real,
      passwordHash: (id) => Effect.tap(real.passwordHash(id), () => Effect.sync(() => counts.hashesRead++))
    })))
    // Fresh: the application built its own of both layers, which would otherwise be shared.
    const context = yield* Layer.build(Layer.fresh(AuthenticationLive.layer).pipe(
      Layer.provide(Layer.mergeAll(counting, reading, failures, Layer.fresh(PasswordDerivations.layer))),
      Layer.provide(Layer.succeed(SignInLimits, { ...SignInLimits.defaultValue(), ...limits }))
    ))
    return Context.get(context, Authentication)
  })

const basic = (username: string, password: string): Credentials => ({ _tag: "Basic", username, password: Redacted.make(password) })

const createAccount = (name: string) =>
  Effect.gen(function*() {
    const hasher = yield* PasswordHasher
    const users = yield* UserStore
    const password = `${name}-password`
    const user = yield* Effect.orDie(users.insert(
      newAccount({ name, kind: "individual", createdAt: 1, email: `${name}@example.com` }),
      yield* hasher.hash(Redacted.make(password))
    ))
    return { user, password }
  })

const failuresOf = (key: string) =>
  Effect.gen(function*() {
    const windows = yield* (yield* SignInFailureStore).openWindows([key], 3_600_000, yield* Clock.currentTimeMillis)
    return windows[0]?.failures ?? 0
  })

const waitUntil = (condition: () => boolean) =>
  TestClock.withLive(Effect.gen(function*() {
    for (let attempt = 0; attempt < 1_000 && !condition(); attempt++) yield* Effect.sleep("10 millis")
    assert.isTrue(condition(), "waited 10 s")
  }))

layer(TestServer.ApplicationLive, { timeout: "120 seconds" })("password sign-in", (it) => {
  it.effect("derives a verified password once; a wrong one is derived and counted, and the right one still answers from memory", () =>
    Effect.scoped(Effect.gen(function*() {
      const counts = { derivations: 0, hashesRead: 0 }
      const auth = yield* authentication(counts)
      const { password, user } = yield* createAccount("ada")
      for (let n = 0; n < 5; n++) {
        const principal = yield* auth.authenticate(basic(n % 2 === 0 ? "ada" : "ADA", password), { address: "10.0.0.1" })
        assert.strictEqual(principal.user.id, user.id)
        assert.strictEqual(principal.method, "basic-password")
      }
      assert.strictEqual(counts.derivations, 1)
      // A wrong password is never answered from memory: it costs a derivation and counts.
      const wrong = yield* Effect.exit(auth.authenticate(basic("ada", "guess"), { address: "10.0.0.1" }))
      assert.isTrue(Exit.isFailure(wrong))
      assert.strictEqual(counts.derivations, 2)
      assert.strictEqual(yield* failuresOf(`account:${user.id}@10.0.0.1`), 1)
      assert.strictEqual(yield* failuresOf("address:10.0.0.1"), 1)
      yield* auth.authenticate(basic("ada", password), { address: "10.0.0.1" })
      assert.strictEqual(counts.derivations, 2)
    })))

  it.effect("lets concurrent sign-ins with one password share one derivation", () =>
    Effect.scoped(Effect.gen(function*() {
      const counts = { derivations: 0, hashesRead: 0 }
      const gate = yield* Deferred.make<void>()
      const auth = yield* authentication(counts, {}, gate)
      const { password, user } = yield* createAccount("bo")
      const signIns = yield* Effect.forkChild(Effect.all(
        Array.from({ length: 40 }, (_, n) => auth.authenticate(basic("bo", password), { address: `10.0.1.${n}` })),
        { concurrency: "unbounded" }
      ))
      // Every sign-in has read the stored hash and is about to derive: only one does.
      yield* waitUntil(() => counts.hashesRead === 40)
      yield* TestClock.withLive(Effect.sleep("50 millis"))
      yield* Deferred.succeed(gate, undefined)
      const principals = yield* Fiber.join(signIns)
      assert.isTrue(principals.every((principal) => principal.user.id === user.id))
      assert.strictEqual(counts.derivations, 1)
    })))

  it.effect("sees a new password, a prohibited sign-in and a removed account at once", () =>
    Effect.scoped(Effect.gen(function*() {
      const counts = { derivations: 0, hashesRead: 0 }
      const auth = yield* authentication(counts)
      const users = yield* UserStore
      const hasher = yield* PasswordHasher
      const { password, user } = yield* createAccount("cy")
      yield* auth.authenticate(basic("cy", password), { address: "10.0.0.2" })
      yield* users.setPasswordHash(user.id, yield* hasher.hash(Redacted.make("a new password")))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(auth.authenticate(basic("cy", password), { address: "10.0.0.2" }))))
      const renewed = yield* auth.authenticate(basic("cy", "a new password"), { address: "10.0.0.2" })
      assert.isTrue(Option.isNone(auth.accountRefusal(renewed.user, TestServer.ROOT_URL)))

      yield* Effect.orDie(users.update(user.id, { prohibitLogin: true }))
      const prohibited = yield* auth.authenticate(basic("cy", "a new password"), { address: "10.0.0.2" })
      assert.isTrue(Option.isSome(auth.accountRefusal(prohibited.user, TestServer.ROOT_URL)))

      yield* users.remove(user.id)
      assert.isTrue(Exit.isFailure(yield* Effect.exit(auth.authenticate(basic("cy", "a new password"), { address: "10.0.0.2" }))))
    })))

  it.effect("limits guesses of a remembered password as of any other, and never refuses the owner from a clean address", () =>
    Effect.scoped(Effect.gen(function*() {
      const counts = { derivations: 0, hashesRead: 0 }
      const auth = yield* authentication(counts, { maxFailuresPerAccount: 2, maxFailuresPerAddress: 0 })
      const { password, user } = yield* createAccount("di")
      yield* auth.authenticate(basic("di", password), { address: "10.0.0.3" })
      // A stranger guesses from elsewhere, up to the account's limit from there.
      for (let n = 0; n < 2; n++) {
        const guess = yield* Effect.exit(auth.authenticate(basic("di", `guess-${n}`), { address: "198.51.100.9" }))
        assert.isTrue(Exit.isFailure(guess) && String(guess.cause).includes("AuthenticationFailed"), String(guess))
      }
      // From there even the right (remembered) password is refused now: no guessing against memory.
      const refused = yield* Effect.exit(auth.authenticate(basic("di", password), { address: "198.51.100.9" }))
      assert.isTrue(Exit.isFailure(refused) && String(refused.cause).includes("SignInThrottled"), String(refused))
      const derived = counts.derivations
      const again = yield* Effect.exit(auth.authenticate(basic("di", "guess-2"), { address: "198.51.100.9" }))
      assert.isTrue(Exit.isFailure(again) && String(again.cause).includes("SignInThrottled"), String(again))
      assert.strictEqual(counts.derivations, derived, "refused before deriving")
      // The owner, from the owner's address and from a new one.
      assert.strictEqual((yield* auth.authenticate(basic("di", password), { address: "10.0.0.3" })).user.id, user.id)
      assert.strictEqual((yield* auth.authenticate(basic("di", password), { address: "192.0.2.4" })).user.id, user.id)
    })))

  it.effect("refuses a login longer than any name or e-mail address before any derivation, and counts it for its address", () =>
    Effect.scoped(Effect.gen(function*() {
      const counts = { derivations: 0, hashesRead: 0 }
      const auth = yield* authentication(counts)
      const overlong = yield* Effect.exit(auth.authenticate(basic("x".repeat(4_000), "guess"), { address: "10.0.0.5" }))
      assert.isTrue(Exit.isFailure(overlong) && String(overlong.cause).includes("user does not exist"), String(overlong))
      assert.strictEqual(counts.derivations, 0)
      assert.strictEqual(counts.hashesRead, 0)
      assert.strictEqual(yield* failuresOf("address:10.0.0.5"), 1)
      // The longest login an account may have is checked as any other: a derivation.
      const longest = yield* Effect.exit(auth.authenticate(basic(`${"y".repeat(242)}@example.com`, "guess"), { address: "10.0.0.5" }))
      assert.isTrue(Exit.isFailure(longest))
      assert.strictEqual(counts.derivations, 1)
      assert.strictEqual(yield* failuresOf("address:10.0.0.5"), 2)
    })))

  it.effect("derives nothing for an attempt that could not be counted", () =>
    Effect.scoped(Effect.gen(function*() {
      const counts = { derivations: 0, hashesRead: 0 }
      const uncountable = Layer.effect(SignInFailureStore, Effect.map(Effect.service(SignInFailureStore), (real) => SignInFailureStore.of({
        ...real,
        record: () => Effect.die(new Error("the failure table cannot be written"))
      })))
      const auth = yield* authentication(counts, {}, undefined, uncountable)
      const { password } = yield* createAccount("ed")
      const wrong = yield* Effect.exit(auth.authenticate(basic("ed", "guess"), { address: "10.0.0.6" }))
      assert.isTrue(Exit.isFailure(wrong) && String(wrong.cause).includes("cannot be written"), String(wrong))
      const right = yield* Effect.exit(auth.authenticate(basic("ed", password), { address: "10.0.0.6" }))
      assert.isTrue(Exit.isFailure(right))
      assert.strictEqual(counts.derivations, 0)
    })))
})
