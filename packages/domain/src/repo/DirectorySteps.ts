/**
 * A repository directory made, moved or removed together with its row. The disk step runs inside
 * the row's transaction, under the directory's write-lock key: a failed step rolls the rows back,
 * and a step whose rows then fail to commit is undone.
 *
 * A process killed between its step and its commit cannot undo anything: a directory would stay
 * without a row (blocking the name), or a renamed or deleted repository's row would point where its
 * directory no longer is. So the undo is written down first (PendingDirectorySteps) and the row's
 * transaction takes the mark back as it commits. A mark whose key is free again names a step whose
 * rows never committed: the next section on that directory, an adoption, a fork's or migration's
 * check for left files, and every start undo it (`settle`). The mark is taken back first in the
 * section's transaction, so a settle that meets a commit still on its way (the process died after
 * sending it) waits for it on the mark's row lock and then finds nothing to undo. A section inside
 * a wider transaction (a change and its webhook deliveries) is settled only once that one commits.
 * A section with work left after its commit (a deletion erasing its tombstone) turns its mark into
 * that work instead of taking it back, and takes it back once the work is done: a process that dies
 * in between leaves the work to a settle.
 *
 * Undoing trusts the mark: a section killed after its mark but before its step failed on a
 * directory without a row (an unadopted one) has that directory removed by the settle. The step
 * fails only when such a directory appeared after the section's own check, so this needs a crash
 * in that moment.
 */
import { Context, Effect, Layer, Ref, Schedule } from "effect"
import { repositoryDirectoryKey, WriteLocks } from "../coordination/WriteLocks.ts"
import { GitStorage, type RepositoryLocation } from "../git/GitStorage.ts"
import { type DirectoryUndo, PendingDirectorySteps } from "./PendingDirectorySteps.ts"
import { Transactions } from "./Transactions.ts"

/**
 * Runs `step` inside the transaction `rowsThenStep` opens around it (the rows, then the step),
 * holding the key of `location` (the directory the step makes, moves or removes) until it ends.
 */
export type DiskStepInTransaction = <A, E, R>(
  location: RepositoryLocation,
  step: Effect.Effect<A, E, R>,
  undo: ReadonlyArray<DirectoryUndo>,
  /** Work left once the rows committed (erasing a tombstone), run then; the mark keeps it until done. */
  afterCommit?: ReadonlyArray<DirectoryUndo>
) => <B, E3, R3>(rowsThenStep: (step: Effect.Effect<A, E, R>) => Effect.Effect<B, E3, R3>) => Effect.Effect<B, E3, R3>

export class DirectorySteps extends Context.Service<DirectorySteps, {
  readonly inTransaction: DiskStepInTransaction
  /** Undoes what an interrupted step left at `location` (waiting for its key only when there is some). */
  readonly settle: (location: RepositoryLocation) => Effect.Effect<void>
  /** The same, for a caller already holding the key of `location`. */
  readonly settleHeld: (location: RepositoryLocation) => Effect.Effect<void>
  /** Every interrupted step whose key is free (at start); how many were settled. */
  readonly settleAll: Effect.Effect<number>
}>()("@kiln/domain/repo/DirectorySteps") {}

export const layer: Layer.Layer<DirectorySteps, never, GitStorage | WriteLocks | Transactions | PendingDirectorySteps> = Layer.effect(
  DirectorySteps,
  Effect.gen(function*() {
    const git = yield* GitStorage
    const writeLocks = yield* WriteLocks
    const transactions = yield* Transactions
    const pending = yield* PendingDirectorySteps

    // Each undo is a no-op when what it acts on is not there (the step had not happened yet).
    const undoOne = (undo: DirectoryUndo) => {
      switch (undo._tag) {
        case "Remove":
          return git.remove(undo.location)
        case "Move":
          return git.move(undo.from, undo.to).pipe(Effect.catchTag("NotFound", () => Effect.void))
        case "SetDefaultBranch":
          return git.setDefaultBranch(undo.location, undo.branch).pipe(Effect.catchTag("NotFound", () => Effect.void))
      }
    }
    const runUndo = (steps: ReadonlyArray<DirectoryUndo>) => Effect.forEach(steps, undoOne, { discard: true })

    /** Runs the marks on `key`, whose holder is the caller; how many. A failed one keeps its mark. */
    const settleKey = (key: string) =>
      Effect.gen(function*() {
        let undone = 0
        for (const mark of yield* pending.list(key)) {
          const taken = yield* transactions.run(
            Effect.flatMap(pending.take(mark.id), (found) => found ? Effect.as(runUndo(mark.undo), true) : Effect.succeed(false))
          ).pipe(Effect.catchCause((cause) => Effect.as(Effect.logError(`could not undo an interrupted step on ${key}`, cause), false)))
          if (taken) {
            undone++
            yield* Effect.logWarning(`settled a step on ${key} that a stopped process left unfinished`)
          }
        }
        return undone
      })

    /** The work a committed section left, then its mark; a failure keeps the mark for a later settle. */
    const finish = (key: string, id: number, steps: ReadonlyArray<DirectoryUndo>) =>
      runUndo(steps).pipe(
        Effect.retry({ times: 3, schedule: Schedule.exponential("200 millis") }),
        Effect.andThen(pending.release(id)),
        Effect.catchCause((cause) => Effect.logError(`work after a commit on ${key} is left for a later settle`, cause))
      )

    const inTransaction: DiskStepInTransaction = (location, step, undo, afterCommit = []) => (rowsThenStep) => {
      const key = repositoryDirectoryKey(location)
      return writeLocks.withLock(
        key,
        Effect.gen(function*() {
          yield* settleKey(key)
          const id = yield* pending.mark(key, undo)
          const done = yield* Ref.make(false)
          const settleMark = afterCommit.length === 0
            ? pending.take(id)
            : Effect.andThen(pending.replace(id, afterCommit), transactions.afterCommit(finish(key, id, afterCommit)))
          return yield* transactions.run(Effect.andThen(settleMark, rowsThenStep(Effect.tap(step, () => Ref.set(done, true))))).pipe(
            Effect.onExit((exit) =>
              exit._tag === "Success"
                ? Effect.void
                : Effect.gen(function*() {
                  if (yield* Ref.get(done)) yield* runUndo(undo)
                  // Not `take`: a transaction around this section rolls back, and the mark with it would stay.
                  yield* pending.release(id)
                }).pipe(Effect.catchCause((cause) => Effect.logError("could not undo a disk step; a later settle retries", cause))))
          )
        })
      )
    }

    return DirectorySteps.of({
      inTransaction,
      settle: (location) => {
        const key = repositoryDirectoryKey(location)
        return Effect.flatMap(pending.list(key), (marks) => marks.length === 0 ? Effect.void : Effect.asVoid(writeLocks.withLock(key, settleKey(key))))
      },
      settleHeld: (location) => Effect.asVoid(settleKey(repositoryDirectoryKey(location))),
      settleAll: Effect.gen(function*() {
        const keys = new Set((yield* pending.list(undefined)).map((mark) => mark.key))
        let undone = 0
        // A key held now is a live section's: its own commit or undo takes its mark back.
        for (const key of keys) undone += (yield* writeLocks.whenFree(key, settleKey(key))) ?? 0
        return undone
      })
    })
  })
)
