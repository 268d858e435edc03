/**
 * At start, in the background: re-reads the branches of every repository whose write section was
 * left unfinished (a process killed mid-push), unless a live process is in that section now.
 */
import { Cause, Effect, Layer } from "effect"
import { Branches } from "@kiln/domain/git/Branches"

export const layer = Layer.effectDiscard(Effect.gen(function*() {
  const branches = yield* Branches
  yield* branches.healPending.pipe(
    Effect.tap((healed) => healed > 0 ? Effect.logInfo(`re-read the branches of ${healed} repositories left unfinished`) : Effect.void),
    Effect.catchCause((cause) => Effect.logWarning("branch table repair failed", Cause.pretty(cause))),
    Effect.forkScoped
  )
}))
