/**
 * Rows kept in step with other rows (the usage totals of 0007, the search epoch of 0008, the
 * redirects of 0009, the release counts of 0020) checked against what they are derived from, and
 * rewritten from it. What the consistency check (`kiln doctor`) reports and repairs.
 */
import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"

export interface TotalMismatch {
  /** `table.column` of the kept total. */
  readonly total: string
  /** Whose total: the row's id (or owner id). */
  readonly key: string
  readonly kept: string
  readonly fresh: string
}

/** Each total with its fresh aggregate, bottom-up: a repair in this order fixes every level. */
const totals = [
  {
    total: "package_versions.size",
    query: `SELECT v.id::text AS key, v.size::text AS kept, coalesce(f.size, 0)::text AS fresh
      FROM package_versions v LEFT JOIN (SELECT version_id, sum(size) AS size FROM package_files GROUP BY version_id) f ON f.version_id = v.id
      WHERE v.size <> coalesce(f.size, 0)`,
    repair: `UPDATE package_versions v SET size = coalesce((SELECT sum(size) FROM package_files f WHERE f.version_id = v.id), 0)`
  },
  {
    total: "packages.size",
    query: `SELECT p.id::text AS key, p.size::text AS kept, coalesce(v.size, 0)::text AS fresh
      FROM packages p LEFT JOIN (SELECT package_id, sum(size) AS size FROM package_versions GROUP BY package_id) v ON v.package_id = p.id
      WHERE p.size <> coalesce(v.size, 0)`,
    repair: `UPDATE packages p SET size = coalesce((SELECT sum(size) FROM package_versions v WHERE v.package_id = p.id), 0)`
  },
  {
    total: "repositories.attachments_size",
    query: `SELECT r.id::text AS key, r.attachments_size::text AS kept, coalesce(a.size, 0)::text AS fresh
      FROM repositories r LEFT JOIN (SELECT repo_id, sum(size) AS size FROM attachments GROUP BY repo_id) a ON a.repo_id = r.id
      WHERE r.attachments_size <> coalesce(a.size, 0)`,
    repair: `UPDATE repositories r SET attachments_size = coalesce((SELECT sum(size) FROM attachments a WHERE a.repo_id = r.id), 0)`
  },
  {
    total: "repositories.lfs_size",
    query: `SELECT r.id::text AS key, r.lfs_size::text AS kept, coalesce(l.size, 0)::text AS fresh
      FROM repositories r LEFT JOIN (SELECT repo_id, sum(size) AS size FROM lfs_references GROUP BY repo_id) l ON l.repo_id = r.id
      WHERE r.lfs_size <> coalesce(l.size, 0)`,
    repair: `UPDATE repositories r SET lfs_size = coalesce((SELECT sum(size) FROM lfs_references l WHERE l.repo_id = r.id), 0)`
  },
  {
    total: "repositories.attachments_count",
    query: `SELECT r.id::text AS key, r.attachments_count::text AS kept, coalesce(a.items, 0)::text AS fresh
      FROM repositories r LEFT JOIN (SELECT repo_id, count(*) AS items FROM attachments GROUP BY repo_id) a ON a.repo_id = r.id
      WHERE r.attachments_count <> coalesce(a.items, 0)`,
    repair: `UPDATE repositories r SET attachments_count = (SELECT count(*) FROM attachments a WHERE a.repo_id = r.id)`
  },
  {
    total: "repositories.num_releases",
    query: `SELECT r.id::text AS key, r.num_releases::text AS kept, coalesce(x.items, 0)::text AS fresh
      FROM repositories r LEFT JOIN (SELECT repo_id, count(*) AS items FROM releases WHERE NOT is_draft GROUP BY repo_id) x ON x.repo_id = r.id
      WHERE r.num_releases <> coalesce(x.items, 0)`,
    repair: `UPDATE repositories r SET num_releases = (SELECT count(*) FROM releases x WHERE x.repo_id = r.id AND NOT x.is_draft)`
  },
  {
    total: "repositories.packages_size",
    query: `SELECT r.id::text AS key, r.packages_size::text AS kept, coalesce(p.size, 0)::text AS fresh
      FROM repositories r LEFT JOIN (SELECT repo_id, sum(size) AS size FROM packages WHERE repo_id IS NOT NULL GROUP BY repo_id) p ON p.repo_id = r.id
      WHERE r.packages_size <> coalesce(p.size, 0)`,
    repair: `UPDATE repositories r SET packages_size = coalesce((SELECT sum(size) FROM packages p WHERE p.repo_id = r.id), 0)`
  },
  {
    total: "unlinked_package_usage.size",
    query: `SELECT coalesce(u.owner_id, p.owner_id)::text AS key, coalesce(u.size, 0)::text AS kept, coalesce(p.size, 0)::text AS fresh
      FROM unlinked_package_usage u
      FULL JOIN (SELECT owner_id, sum(size) AS size FROM packages WHERE repo_id IS NULL GROUP BY owner_id) p ON p.owner_id = u.owner_id
      WHERE coalesce(u.size, 0) <> coalesce(p.size, 0)`,
    repair: `DELETE FROM unlinked_package_usage;
      INSERT INTO unlinked_package_usage (owner_id, size)
      SELECT owner_id, sum(size) FROM packages WHERE repo_id IS NULL GROUP BY owner_id HAVING sum(size) <> 0`
  }
] as const

export const totalMismatches: Effect.Effect<ReadonlyArray<TotalMismatch>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    const found: Array<TotalMismatch> = []
    for (const total of totals) {
      const rows = yield* sql.unsafe<{ readonly key: string; readonly kept: string; readonly fresh: string }>(total.query)
      for (const row of rows) found.push({ total: total.total, key: row.key, kept: row.kept, fresh: row.fresh })
    }
    return found
  }
)

/**
 * Sets every total to its fresh aggregate, bottom-up, in one transaction; the table locks keep
 * writers from moving items meanwhile. The triggers move parents along as a level changes, and the
 * level above is then set from its own aggregate, so each ends right whatever the triggers add.
 */
export const recomputeTotals: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`LOCK TABLE repositories, releases, attachments, packages, package_versions, package_files, unlinked_package_usage IN SHARE ROW EXCLUSIVE MODE`
    for (const total of totals) {
      for (const statement of total.repair.split(";")) yield* sql.unsafe(statement)
    }
  }))
})

/** The search epoch is one row (0008); without it no search count is ever reused correctly. */
export const searchEpochMissing: Effect.Effect<boolean, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly rows: number }>`SELECT count(*)::int AS rows FROM repository_search_epoch`
  return rows[0]?.rows !== 1
})

/** Puts the epoch row back, past any count a search could have kept. */
export const restoreSearchEpoch: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`INSERT INTO repository_search_epoch (epoch) VALUES ((extract(epoch FROM clock_timestamp()) * 1000)::bigint)
      ON CONFLICT (only_row) DO NOTHING`
)

export interface ShadowedRedirect {
  readonly owner: string
  readonly name: string
}

/** Redirects from a name a live repository of the same owner has taken (a rename should have removed them). */
export const shadowedRedirects: Effect.Effect<ReadonlyArray<ShadowedRedirect>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<ShadowedRedirect>`
      SELECT u.lower_name AS owner, d.lower_name AS name FROM repository_redirects d
      JOIN repositories r ON r.owner_id = d.owner_id AND r.lower_name = d.lower_name
      JOIN users u ON u.id = d.owner_id ORDER BY 1, 2`
  }
)

export const removeShadowedRedirects: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`DELETE FROM repository_redirects d USING repositories r WHERE r.owner_id = d.owner_id AND r.lower_name = d.lower_name`
)
