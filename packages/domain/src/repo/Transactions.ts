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
}>()("@kiln/domain/repo/Transactions") {}
