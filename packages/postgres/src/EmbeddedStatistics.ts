/**
 * Planner statistics for the embedded database. A PostgreSQL server's autovacuum daemon keeps
 * them; PGlite runs no background workers, so without this its tables would never be analyzed
 * and the planner would guess: with no statistics on `users`, a repository search for a common
 * keyword is planned as a sort of every match (~25 ms at 100,000 repositories instead of ~1 ms).
 *
 * ANALYZE reads a fixed sample per table (at most 30,000 rows), so it stays short as the data
 * grows; on PGlite's single connection other queries wait for it meanwhile.
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"

/** Analyzes every table now and then every `every`, in the background, until the layer's scope ends. */
export const layer = (every: Duration.Input = Duration.hours(1)): Layer.Layer<never, never, SqlClient.SqlClient> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ANALYZE`.pipe(
      // A failed run (the database closing, say) is retried at the next one.
      Effect.ignore,
      Effect.repeat(Schedule.spaced(every)),
      Effect.forkScoped
    )
  }))
