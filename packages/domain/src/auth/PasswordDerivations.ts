/**
 * The turns for deriving password hashes, shared by every caller: each derivation (scrypt, 128 MiB
 * and a few hundred ms of a libuv thread) takes one, and only `maxConcurrentDerivations` run at
 * once, whoever asks (a sign-in, a new password), so hashing cannot take every thread from file
 * and DNS work. A sign-in waits its turn in a queue of at most `maxWaitingSignIns`, and is refused
 * with SignInThrottled only when that queue is full: the server is then behind by seconds of
 * derivations. Setting a password (an authorized request) waits as long as it takes.
 */
import { Context, Effect, Layer, Semaphore } from "effect"
import { SignInLimits, SignInThrottled } from "./SignInLimits.ts"

export class PasswordDerivations extends Context.Service<PasswordDerivations, {
  /** Runs `derive` in a turn, waiting in the bounded queue of sign-ins; SignInThrottled when it is full. */
  readonly forSignIn: <A, E, R>(derive: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SignInThrottled, R>
  /** Runs `derive` in a turn, however long the wait. */
  readonly waiting: <A, E, R>(derive: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("@kiln/domain/auth/PasswordDerivations") {}

export const layer: Layer.Layer<PasswordDerivations> = Layer.effect(
  PasswordDerivations,
  Effect.gen(function*() {
    const limits = yield* SignInLimits
    const turns = yield* Semaphore.make(Math.max(1, limits.maxConcurrentDerivations))
    const maxWaiting = Math.max(1, limits.maxWaitingSignIns)
    // Sign-ins that asked for a turn and do not have one yet.
    let waiting = 0
    const overloaded = new SignInThrottled({ message: "too many sign-ins at once, please try again later", retryAfterSeconds: 1 })
    return PasswordDerivations.of({
      forSignIn: <A, E, R>(derive: Effect.Effect<A, E, R>) =>
        Effect.suspend((): Effect.Effect<A, E | SignInThrottled, R> => {
          if (waiting >= maxWaiting) return Effect.fail(overloaded)
          waiting++
          let queued = true
          const leave = () => {
            if (queued) waiting--
            queued = false
          }
          return turns.withPermits(1)(Effect.suspend(() => {
            leave()
            return derive
          })).pipe(Effect.ensuring(Effect.sync(leave)))
        }),
      waiting: (derive) => turns.withPermits(1)(derive)
    })
  })
)
