/**
 * What the kept usage totals (migration 0007) and release counts (0020) must equal, computed
 * afresh from the item rows: an owner's usage and quota lists as QuotaStoreSql read them before the
 * totals, and every kept column that differs from its sum or count.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { emptyUsage, type Usage } from "@kiln/domain/quota/Usage"
import { int } from "../../src/stores/Rows.ts"

/** Usage of `ownerId` summed from the item rows, as QuotaStoreSql did before the totals. */
export const freshUsage = (ownerId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ repos_public: unknown; repos_private: unknown; lfs: unknown; attachments: unknown; packages: unknown }>`SELECT
        (SELECT COALESCE(sum(size) FILTER (WHERE NOT is_private), 0) FROM repositories WHERE owner_id = ${ownerId}) AS repos_public,
        (SELECT COALESCE(sum(size) FILTER (WHERE is_private), 0) FROM repositories WHERE owner_id = ${ownerId}) AS repos_private,
        (SELECT COALESCE(sum(o.size), 0) FROM repositories r JOIN lfs_references l ON l.repo_id = r.id
          JOIN lfs_objects o ON o.oid = l.oid WHERE r.owner_id = ${ownerId}) AS lfs,
        (SELECT COALESCE(sum(a.size), 0) FROM repositories r JOIN attachments a ON a.repo_id = r.id
          WHERE r.owner_id = ${ownerId}) AS attachments,
        (SELECT COALESCE(sum(f.size), 0) FROM packages p
          JOIN package_versions v ON v.package_id = p.id
          JOIN package_files f ON f.version_id = v.id
          WHERE (p.repo_id IS NULL AND p.owner_id = ${ownerId})
            OR p.repo_id IN (SELECT id FROM repositories WHERE owner_id = ${ownerId})) AS packages`
    return {
      ...emptyUsage,
      reposPublic: int(row?.repos_public),
      reposPrivate: int(row?.repos_private),
      gitLfs: int(row?.lfs),
      attachmentsReleases: int(row?.attachments),
      packages: int(row?.packages)
    } satisfies Usage
  })

/** The first `limit` attachments and package versions of `ownerId` by size, and their numbers, from the item rows. */
export const freshLists = (ownerId: number, limit: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const attachments = yield* sql<{ id: unknown; size: unknown }>`SELECT a.id, a.size FROM attachments a
      JOIN repositories r ON r.id = a.repo_id WHERE r.owner_id = ${ownerId} ORDER BY a.size DESC, a.id LIMIT ${limit}`
    const [counted] = yield* sql<{ total: unknown }>`SELECT count(*) AS total FROM attachments a
      JOIN repositories r ON r.id = a.repo_id WHERE r.owner_id = ${ownerId}`
    const versions = yield* sql<{ id: unknown; size: unknown; total: unknown }>`SELECT v.id,
        (SELECT COALESCE(sum(f.size), 0) FROM package_files f WHERE f.version_id = v.id) AS size, count(*) OVER () AS total
      FROM package_versions v JOIN packages p ON p.id = v.package_id
      WHERE (p.repo_id IS NULL AND p.owner_id = ${ownerId}) OR p.repo_id IN (SELECT id FROM repositories WHERE owner_id = ${ownerId})
      ORDER BY size DESC, v.id LIMIT ${limit}`
    return {
      attachments: attachments.map((row) => [int(row.id), int(row.size)]),
      attachmentTotal: int(counted?.total),
      versions: versions.map((row) => [int(row.id), int(row.size)]),
      versionTotal: versions[0] === undefined ? 0 : int(versions[0].total)
    }
  })

/** Every kept total that differs from the sum over its rows, named; none when all agree. */
export const driftedTotals = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ drift: string }>`
    SELECT 'repository ' || r.id || ' attachments' AS drift FROM repositories r
      WHERE r.attachments_size <> (SELECT COALESCE(sum(size), 0) FROM attachments a WHERE a.repo_id = r.id)
        OR r.attachments_count <> (SELECT count(*) FROM attachments a WHERE a.repo_id = r.id)
    UNION ALL SELECT 'repository ' || r.id || ' releases' FROM repositories r
      WHERE r.num_releases <> (SELECT count(*) FROM releases x WHERE x.repo_id = r.id AND NOT x.is_draft)
    UNION ALL SELECT 'attachment ' || a.id || ' owner' FROM attachments a JOIN repositories r ON r.id = a.repo_id
      WHERE a.owner_id <> r.owner_id
    UNION ALL SELECT 'repository ' || r.id || ' lfs' FROM repositories r
      WHERE r.lfs_size <> (SELECT COALESCE(sum(size), 0) FROM lfs_references l WHERE l.repo_id = r.id)
    UNION ALL SELECT 'repository ' || r.id || ' packages' FROM repositories r
      WHERE r.packages_size <> (SELECT COALESCE(sum(size), 0) FROM packages p WHERE p.repo_id = r.id)
    UNION ALL SELECT 'version ' || v.id FROM package_versions v
      WHERE v.size <> (SELECT COALESCE(sum(size), 0) FROM package_files f WHERE f.version_id = v.id)
    UNION ALL SELECT 'package ' || p.id FROM packages p
      WHERE p.size <> (SELECT COALESCE(sum(size), 0) FROM package_versions v WHERE v.package_id = p.id)
    UNION ALL SELECT 'unlinked packages of ' || u.id FROM users u
      WHERE COALESCE((SELECT size FROM unlinked_package_usage x WHERE x.owner_id = u.id), 0)
        <> (SELECT COALESCE(sum(size), 0) FROM packages p WHERE p.owner_id = u.id AND p.repo_id IS NULL)`
  return rows.map((row) => row.drift)
})
