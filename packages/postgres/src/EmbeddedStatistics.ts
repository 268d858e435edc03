/**
 * Planner statistics for the embedded database. A PostgreSQL server's autovacuum daemon keeps
 * them; PGlite runs no background workers, so without this its tables would never be analyzed
 * and the planner would guess: with no statistics on `users`, a repository search for a common
 * keyword is planned as a sort of every match (~25 ms at 100,000 repositories instead of ~1 ms).
 *
 * ANALYZE reads a fixed sample per table (at most 30,000 rows), so it stays short as the data
 * grows; on PGlite's single connection other queries wait for it meanwhile. It runs as a periodic
 * task (once per due time, whichever process takes it) by the job worker.
 */
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { JobFailed } from "@kiln/domain/coordination/Jobs"
import * as PeriodicTask from "@kiln/domain/coordination/PeriodicTask"

/** Analyzes every table now (at start: a restored or imported database may have no statistics). */
export const analyzeNow: Effect.Effect<void, never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ANALYZE`
}).pipe(Effect.ignore)

/** Analyzes every table once per `every` milliseconds (default: hourly). */
export const task = (every: number = Duration.toMillis(Duration.hours(1))) =>
  PeriodicTask.make({
    kind: "embedded-analyze",
    every,
    lease: Duration.toMillis(Duration.minutes(10)),
    run: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`ANALYZE`
    }).pipe(Effect.mapError((error) => new JobFailed({ message: error.message })))
  })
