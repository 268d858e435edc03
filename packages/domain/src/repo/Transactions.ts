/**
 * The port for a database transaction: every store call inside `run` commits together or not at
 * all. The repository service puts its disk steps inside, so a failed disk step rolls the rows back.
 */
import { Context, type Effect } from "effect"

export class Transactions extends Context.Service<Transactions, {
  /**
   * Runs `effect` in one transaction (nested calls share it). A failure of `effect` rolls back and
   * fails as `effect` failed; a failure to commit is a defect.
   */
  readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs `effect` once the outermost transaction around the caller has committed (at once outside
   * one), and never when it rolls back: for what may only follow a commit, such as erasing files
   * whose rows are gone. Lost when the process dies before.
   */
  readonly afterCommit: <R>(effect: Effect.Effect<void, never, R>) => Effect.Effect<void, never, R>
}>()("@kiln/domain/repo/Transactions") {}
