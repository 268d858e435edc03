/**
 * The turns for deriving password hashes, shared by every caller: each derivation (scrypt, 128 MiB
 * and a few hundred ms of a libuv thread) takes one, and only `maxConcurrentDerivations` run at
 * once, whoever asks (a sign-in, a new password), so hashing cannot take every thread from file
 * and DNS work. A sign-in waits briefly for a turn and is refused with SignInThrottled past that;
 * setting a password (an authorized request) waits as long as it takes.
 */
import { Clock, Context, Effect, Layer, Option, Semaphore } from "effect"
import { SignInLimits, SignInThrottled } from "./SignInLimits.ts"

export class PasswordDerivations extends Context.Service<PasswordDerivations, {
  /** Runs `derive` in a turn, waiting at most SignInLimits' wait for one. */
  readonly forSignIn: <A, E, R>(derive: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SignInThrottled, R>
  /** Runs `derive` in a turn, however long the wait. */
  readonly waiting: <A, E, R>(derive: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("@kiln/domain/auth/PasswordDerivations") {}

/** A sleep on the live clock, even where the fiber's clock is another (tests): derivations take wall-clock time. */
const wallClockDelay = (millis: number) =>
  Effect.sleep(millis).pipe(Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()))

export const layer: Layer.Layer<PasswordDerivations> = Layer.effect(
  PasswordDerivations,
  Effect.gen(function*() {
    const limits = yield* SignInLimits
    const turns = yield* Semaphore.make(Math.max(1, limits.maxConcurrentDerivations))
    return PasswordDerivations.of({
      forSignIn: (derive) =>
        Effect.scoped(Effect.gen(function*() {
          const turn = yield* Effect.raceFirst(
            Effect.asSome(turns.takeScoped(1)),
            Effect.as(wallClockDelay(limits.derivationWaitMillis), Option.none<void>())
          )
          if (Option.isNone(turn)) {
            return yield* new SignInThrottled({ message: "too many sign-ins at once, please try again later", retryAfterSeconds: 1 })
          }
          return yield* derive
        })),
      waiting: (derive) => turns.withPermits(1)(derive)
    })
  })
)
