/**
 * The Transactions port on Postgres (`sql.withTransaction`; nested runs become savepoints). A failed
 * BEGIN or COMMIT is a defect: the caller's effect did not fail, the database did.
 */
import { Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { Transactions } from "@kiln/domain/repo/Transactions"

export const layer = Layer.effect(
  Transactions,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return Transactions.of({
      run: (effect) => sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, Effect.die)),
      afterCommit: (effect) => sql.afterCommit(effect)
    })
  })
)
