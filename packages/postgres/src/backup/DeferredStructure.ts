/**
 * What a bulk load sets aside and builds again once the rows are in: the foreign keys and the
 * indexes no constraint owns (btree and trigram GIN alike). Maintaining them row by row was most of
 * a restore's time (100,000 repository rows: 6.8 s loaded with them, 1.9 s without, then 0.7 s to
 * build the indexes and 0.1 s to check the foreign keys). Read from the catalog, so every table and
 * migration is covered without a list; rebuilt from `pg_get_indexdef` and `pg_get_constraintdef`,
 * which the same server prints for itself. Re-adding a foreign key checks every row once, so a
 * snapshot with a dangling reference still fails the load.
 */
import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { quoteIdentifier } from "./DatabaseSnapshot.ts"

interface ForeignKey {
  readonly table: string
  readonly name: string
  readonly definition: string
}

interface Index {
  readonly name: string
  readonly definition: string
}

/**
 * Drops the foreign keys and free-standing indexes of `tables` (in the `public` schema) and returns
 * the effect that creates them again. Run both in the load's transaction.
 */
export const setAside = (
  tables: ReadonlyArray<string>
): Effect.Effect<Effect.Effect<void, SqlError.SqlError>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (tables.length === 0) return Effect.void
    const foreignKeys = yield* sql<ForeignKey>`
      SELECT t.relname AS table, k.conname AS name, pg_get_constraintdef(k.oid) AS definition
      FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE k.contype = 'f' AND n.nspname = 'public' AND ${sql.in("t.relname", tables)}
      ORDER BY t.relname, k.conname`
    // Read before the foreign keys go: an index a foreign key relies on is a constraint's to keep.
    // Clustering and replica identity are flags a rebuilt index would not carry, so those stay too.
    const indexes = yield* sql<Index>`
      SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND ${sql.in("t.relname", tables)}
        AND NOT i.indisclustered AND NOT i.indisreplident
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
      ORDER BY c.relname`
    for (const key of foreignKeys) {
      yield* sql.unsafe(`ALTER TABLE ${quoteIdentifier(key.table)} DROP CONSTRAINT ${quoteIdentifier(key.name)}`)
    }
    for (const index of indexes) yield* sql.unsafe(`DROP INDEX ${quoteIdentifier(index.name)}`)
    return Effect.gen(function*() {
      for (const index of indexes) yield* sql.unsafe(index.definition)
      for (const key of foreignKeys) {
        yield* sql.unsafe(`ALTER TABLE ${quoteIdentifier(key.table)} ADD CONSTRAINT ${quoteIdentifier(key.name)} ${key.definition}`)
      }
    })
  })
