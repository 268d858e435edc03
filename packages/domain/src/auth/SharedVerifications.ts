/**
 * Concurrent checks of one password against one stored hash share one derivation: the first runs
 * it, the others wait for its answer. Forty pushes of one CI job signing in with the same password
 * at once then cost one derivation, not forty. Each caller still counts its own attempt.
 */
import { Cause, Deferred, Effect, Exit, Option } from "effect"

export const makeSharedVerifications = <E>() => {
  // Some(answer), or None when the one deriving was interrupted (a waiting caller then derives).
  const running = new Map<string, Deferred.Deferred<Option.Option<boolean>, E>>()

  const share = (key: string, verify: Effect.Effect<boolean, E>): Effect.Effect<boolean, E> =>
    Effect.suspend(() => {
      const joined = running.get(key)
      if (joined !== undefined) {
        return Effect.flatMap(Deferred.await(joined), (answer) => Option.isSome(answer) ? Effect.succeed(answer.value) : share(key, verify))
      }
      const deferred = Deferred.makeUnsafe<Option.Option<boolean>, E>()
      running.set(key, deferred)
      return verify.pipe(Effect.onExit((exit) => {
        running.delete(key)
        const answer: Exit.Exit<Option.Option<boolean>, E> = Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
          ? Exit.succeed(Option.none())
          : Exit.map(exit, Option.some)
        return Deferred.done(deferred, answer)
      }))
    })

  return { share }
}
