/**
 * At start, in the background: settles the repository directory steps a stopped process left (a
 * directory without its row or a renamed or deleted repository's directory away from its row,
 * undone; a committed deletion's tombstone, erased), unless a live process is in that step now.
 */
import { Cause, Effect, Layer } from "effect"
import { DirectorySteps } from "@kiln/domain/repo/DirectorySteps"

export const layer = Layer.effectDiscard(Effect.gen(function*() {
  const steps = yield* DirectorySteps
  yield* steps.settleAll.pipe(
    Effect.tap((undone) => undone > 0 ? Effect.logInfo(`settled ${undone} repository directory steps left unfinished`) : Effect.void),
    Effect.catchCause((cause) => Effect.logWarning("repository directory repair failed", Cause.pretty(cause))),
    Effect.forkScoped
  )
}))
