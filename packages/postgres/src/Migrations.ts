/**
 * Versioned schema migrations, applied at start-up.
 *
 * `effect/sql`'s Migrator (read in node_modules/effect/src/sql/Migrator.ts) runs all pending
 * migrations in one transaction, recording their ids up front, so a failing migration rolls back
 * its own changes, the other migrations of that start-up and the recorded ids: a start-up applies
 * all pending migrations or none. Against concurrent start-ups it relies on creating its table
 * outside the transaction (tolerating a lost race) and then `LOCK TABLE`; a probe of 10 paired
 * start-ups on Postgres 15 ran each migration once. We still wrap it: the whole run, table
 * creation included, happens in one transaction that first takes a transaction-level advisory
 * lock, so a second process simply waits and then finds nothing to do, without depending on those
 * internals (its fallback for a lost race is to log "already running" and carry on unmigrated).
 * Inside our transaction the advisory lock is required: the Migrator's recovery from a lost
 * table-creation race cannot work in an aborted transaction. The SQL runs unchanged on PGlite.
 */
import { Effect, Layer } from "effect"
import { Migrator, SqlClient, type SqlError } from "effect/sql"

export type Loader = Migrator.Loader
export type MigrationError = Migrator.MigrationError
export const fromRecord = Migrator.fromRecord

// Advisory lock keys are per database, so parallel test databases on one server do not contend.
const migrationLockKey = 0x6b696c6e // "kiln"

/** Applies the pending migrations; returns the `[id, name]` of those it applied. */
export const run = (
  loader: Loader
): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, MigrationError | SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${migrationLockKey})`
      // Nested inside our transaction, the Migrator's own transaction becomes a savepoint.
      return yield* Migrator.make({})({ loader })
    }))
  })

/** Runs the migrations when the layer is built. */
export const layer = (loader: Loader): Layer.Layer<never, MigrationError | SqlError.SqlError, SqlClient.SqlClient> =>
  Layer.effectDiscard(run(loader))
