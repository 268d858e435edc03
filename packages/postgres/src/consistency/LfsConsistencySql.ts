/**
 * LFS bookkeeping checked for `kiln doctor`: objects no repository references (the collection
 * removes them after its grace period; the doctor can at once), and references whose object is
 * named with the repository that holds it (for the references whose file is missing).
 */
import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"

/** An upload recorded longer ago than this belongs to a process that stopped. */
const UPLOAD_LIFETIME_MILLIS = 24 * 60 * 60 * 1000

export const unreferencedObjects: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly oid: string }>`SELECT oid FROM lfs_objects o
    WHERE NOT EXISTS (SELECT 1 FROM lfs_references r WHERE r.oid = o.oid) ORDER BY oid`
  return rows.map((row) => row.oid)
})

export interface LfsReference {
  readonly owner: string
  readonly name: string
  readonly oid: string
}

export const references: Effect.Effect<ReadonlyArray<LfsReference>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<LfsReference>`SELECT u.lower_name AS owner, r.lower_name AS name, l.oid
    FROM lfs_references l JOIN repositories r ON r.id = l.repo_id JOIN users u ON u.id = r.owner_id
    ORDER BY u.lower_name, r.lower_name, l.oid`
})

/**
 * Removes the rows of objects without a reference, skipping those an upload or a reference holds
 * (locked rows, uploads in flight), and returns their oids: the caller erases their files after.
 */
export const removeUnreferenced: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(Effect.gen(function*() {
    const since = Date.now() - UPLOAD_LIFETIME_MILLIS
    const rows = yield* sql<{ readonly oid: string }>`SELECT oid FROM lfs_objects o
      WHERE NOT EXISTS (SELECT 1 FROM lfs_references r WHERE r.oid = o.oid)
        AND NOT EXISTS (SELECT 1 FROM lfs_uploads u WHERE u.oid = o.oid AND u.started_at > ${since})
      ORDER BY oid FOR UPDATE SKIP LOCKED`
    const oids = rows.map((row) => row.oid)
    if (oids.length > 0) yield* sql`DELETE FROM lfs_objects WHERE oid = ANY(${oids}::text[])`
    return oids
  }))
})
