/**
 * What the rows say should be on disk, and which secrets the rows hold: read by a dump inside its
 * snapshot (so the files it copies are the rows' files) and by the consistency check.
 */
import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"

export interface RepositoryReference {
  readonly owner: string
  readonly name: string
  /** Bytes as last measured (an estimate for progress). */
  readonly size: number
}

export interface BlobReference {
  readonly area: "attachments" | "packages" | "lfs"
  readonly name: string
  readonly size: number
}

export interface FileReferences {
  readonly repositories: ReadonlyArray<RepositoryReference>
  readonly blobs: ReadonlyArray<BlobReference>
}

export const fileReferences: Effect.Effect<FileReferences, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const repositories = yield* sql<{ readonly owner: string; readonly name: string; readonly size: string }>`
    SELECT u.lower_name AS owner, r.lower_name AS name, r.size::text AS size
    FROM repositories r JOIN users u ON u.id = r.owner_id ORDER BY u.lower_name, r.lower_name`
  const attachments = yield* sql<{ readonly name: string; readonly size: string }>`
    SELECT uuid::text AS name, size::text AS size FROM attachments ORDER BY uuid`
  const packages = yield* sql<{ readonly name: string; readonly size: string }>`
    SELECT hash_sha256 AS name, size::text AS size FROM package_blobs ORDER BY hash_sha256`
  // A schema from before LFS (an older dump being restored) has no such table.
  const [lfsTable] = yield* sql<{ readonly present: boolean }>`SELECT to_regclass('lfs_objects') IS NOT NULL AS present`
  const lfs = lfsTable?.present === true
    ? yield* sql<{ readonly name: string; readonly size: string }>`SELECT oid AS name, size::text AS size FROM lfs_objects ORDER BY oid`
    : []
  return {
    repositories: repositories.map((row) => ({ owner: row.owner, name: row.name, size: Number(row.size) })),
    blobs: [
      ...attachments.map((row) => ({ area: "attachments" as const, name: row.name, size: Number(row.size) })),
      ...packages.map((row) => ({ area: "packages" as const, name: row.name, size: Number(row.size) })),
      ...lfs.map((row) => ({ area: "lfs" as const, name: row.name, size: Number(row.size) }))
    ]
  }
})

/** Columns holding credentials or what verifies them, as an operator should know a copy holds. */
const secretColumns = [
  { table: "users", column: "password_hash", what: "password hashes (scrypt)" },
  { table: "access_tokens", column: "hash", what: "access token hashes" },
  { table: "lfs_tokens", column: "hash", what: "git-lfs-authenticate token hashes (short-lived)" },
  { table: "webhooks", column: "secret", what: "webhook signing secrets (plain text)" },
  { table: "webhooks", column: "authorization_header", what: "webhook Authorization headers (plain text)" }
] as const

export interface SecretCount {
  readonly where: string
  readonly what: string
  readonly rows: number
}

/** How many rows hold a non-empty value in each secret column that exists in this schema. */
export const secretCounts: Effect.Effect<ReadonlyArray<SecretCount>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    const counts: Array<SecretCount> = []
    for (const secret of secretColumns) {
      const present = yield* sql<{ readonly found: boolean }>`
        SELECT EXISTS (SELECT 1 FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = ${secret.table} AND column_name = ${secret.column}) AS found`
      if (present[0]?.found !== true) continue
      const rows = yield* sql<{ readonly rows: number }>`
        SELECT count(*)::int AS rows FROM ${sql(secret.table)} WHERE ${sql(secret.column)} <> ''`
      counts.push({ where: `${secret.table}.${secret.column}`, what: secret.what, rows: rows[0]?.rows ?? 0 })
    }
    return counts
  }
)
