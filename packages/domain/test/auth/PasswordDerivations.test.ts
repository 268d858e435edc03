import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer } from "effect"
import * as PasswordDerivations from "../../src/auth/PasswordDerivations.ts"
import { SignInLimits } from "../../src/auth/SignInLimits.ts"

const derivationsWith = (maxConcurrentDerivations: number, maxWaitingSignIns: number) =>
  Effect.map(
    Layer.build(PasswordDerivations.layer.pipe(
      Layer.provide(Layer.succeed(SignInLimits, { ...SignInLimits.defaultValue(), maxConcurrentDerivations, maxWaitingSignIns }))
    )),
    Context.get(PasswordDerivations.PasswordDerivations)
  )

describe("PasswordDerivations", () => {
  it.effect("sign-ins wait their turn in a bounded queue; only past it is one refused", () =>
    Effect.scoped(Effect.gen(function*() {
      const derivations = yield* derivationsWith(2, 3)
      const release = yield* Deferred.make<void>()
      let running = 0
      let most = 0
      const derive = Effect.gen(function*() {
        running++
        most = Math.max(most, running)
        yield* Deferred.await(release)
        running--
        return "derived"
      })
      // Two run, three wait: all five are served.
      const served = yield* Effect.forkChild(Effect.all(Array.from({ length: 5 }, () => derivations.forSignIn(derive)), { concurrency: "unbounded" }))
      yield* Effect.yieldNow
      // The queue is full: the sixth is refused at once, with no turn taken.
      const refused = yield* Effect.exit(derivations.forSignIn(derive))
      assert.isTrue(Exit.isFailure(refused) && String(refused.cause).includes("SignInThrottled"), String(refused))
      yield* Deferred.succeed(release, undefined)
      assert.deepStrictEqual(yield* Fiber.join(served), Array.from({ length: 5 }, () => "derived"))
      assert.strictEqual(most, 2)
      // The queue drained: sign-ins are served again.
      assert.strictEqual(yield* derivations.forSignIn(Effect.succeed("again")), "again")
    })))

  it.effect("a sign-in that leaves the queue (its client went) frees its place", () =>
    Effect.scoped(Effect.gen(function*() {
      const derivations = yield* derivationsWith(1, 1)
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(derivations.forSignIn(Deferred.await(release)))
      yield* Effect.yieldNow
      const waiter = yield* Effect.forkChild(derivations.forSignIn(Effect.void))
      yield* Effect.yieldNow
      assert.isTrue(Exit.isFailure(yield* Effect.exit(derivations.forSignIn(Effect.void))), "the queue of one is full")
      yield* Fiber.interrupt(waiter)
      const next = yield* Effect.forkChild(derivations.forSignIn(Effect.succeed("served")))
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      assert.strictEqual(yield* Fiber.join(next), "served")
    })))
})
