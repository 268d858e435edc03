/**
 * Marks of repository directory steps not yet settled (DirectorySteps.ts): a step that makes, moves
 * or removes a repository directory together with its row is written down, with how to undo it,
 * and committed before the step; the row's transaction removes the mark as it commits, or turns it
 * into the work left after the commit. A mark that outlives its section names a step whose rows
 * never committed (its process was killed in between), to be undone, or that work, to be done.
 */
import { Context, type Effect, Schema } from "effect"

const Location = Schema.Struct({ owner: Schema.String, name: Schema.String })

/**
 * One step of a mark, run in order by a settle: an undo, or the work left after a commit. Each is a
 * no-op when what it acts on is not there.
 */
export const DirectoryUndo = Schema.Union([
  Schema.TaggedStruct("Remove", { location: Location }),
  Schema.TaggedStruct("Move", { from: Location, to: Location }),
  Schema.TaggedStruct("SetDefaultBranch", { location: Location, branch: Schema.String })
])
export type DirectoryUndo = typeof DirectoryUndo.Type

export const DirectoryUndoSteps = Schema.Array(DirectoryUndo)

export interface PendingDirectoryStep {
  readonly id: number
  /** The directory's write-lock key (WriteLocks.repositoryDirectoryKey), held by the step's section. */
  readonly key: string
  readonly undo: ReadonlyArray<DirectoryUndo>
}

export class PendingDirectorySteps extends Context.Service<PendingDirectorySteps, {
  /**
   * Writes a mark down and commits it at once, outside the caller's transaction (an adapter that
   * cannot, a database of one session, says so).
   */
  readonly mark: (key: string, undo: ReadonlyArray<DirectoryUndo>) => Effect.Effect<number>
  /**
   * Removes a mark in the caller's transaction; false when it is gone. Its row lock holds off anyone
   * else taking the mark until that transaction ends: a section's commit on its way to a server whose
   * process died is awaited, never undone.
   */
  readonly take: (id: number) => Effect.Effect<boolean>
  /**
   * Replaces a mark's steps in the caller's transaction (row-locked as `take`); false when it is
   * gone. For a section with work left once its rows commit (erasing a deleted repository's files):
   * from the commit on, the mark names that work instead of the undo.
   */
  readonly replace: (id: number, steps: ReadonlyArray<DirectoryUndo>) => Effect.Effect<boolean>
  /**
   * Removes a mark at once, outside the caller's transaction (as `mark` writes it): a section that
   * failed, its step undone or never made, inside a transaction that will roll back.
   */
  readonly release: (id: number) => Effect.Effect<void>
  /** The marks on one directory key, or on all when `undefined`, oldest first. */
  readonly list: (key: string | undefined) => Effect.Effect<ReadonlyArray<PendingDirectoryStep>>
}>()("@kiln/domain/repo/PendingDirectorySteps") {}
