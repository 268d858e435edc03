/**
 * Migrations 0007 and 0020 on a database that already holds releases, attachments and packages
 * (written under 0006): the totals they add start equal to the sums and counts over the existing
 * rows (drafts left out of the release count), and the usage read from them equals the usage summed
 * from the rows.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import * as Migrations from "../../src/Migrations.ts"
import accounts from "../../src/migrations/0001_accounts.ts"
import organizations from "../../src/migrations/0002_organizations.ts"
import repositories from "../../src/migrations/0003_repositories.ts"
import quota from "../../src/migrations/0004_quota.ts"
import branches from "../../src/migrations/0005_branches.ts"
import releasesPackages from "../../src/migrations/0006_releases_packages.ts"
import { loader } from "../../src/migrations/index.ts"
import * as QuotaStoreSql from "../../src/stores/QuotaStoreSql.ts"
import { int } from "../../src/stores/Rows.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { driftedTotals, freshLists, freshUsage } from "./UsageTotalsChecks.ts"

const before0007 = Migrations.fromRecord({
  "0001_accounts": accounts,
  "0002_organizations": organizations,
  "0003_repositories": repositories,
  "0004_quota": quota,
  "0005_branches": branches,
  "0006_releases_packages": releasesPackages
})

/**
 * Two owners with two repositories each, a release of 3 attachments per repository, and packages
 * of two versions with two files each: one unlinked per owner, one of each owner linked to a
 * repository of the other, one version without files.
 */
const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO users (name, lower_name, kind, email, visibility, created_at, updated_at)
    VALUES ('ann', 'ann', 'individual', 'ann@example.com', 'public', 0, 0),
           ('corp', 'corp', 'organization', '', 'public', 0, 0)`
  yield* sql`INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, is_private, size, units,
      created_at, updated_at)
    SELECT u.id, 'repo-' || g, 'repo-' || g, 'main', 'main', g = 2, 100 * g, '{}'::jsonb, 0, 0
    FROM users u CROSS JOIN generate_series(1, 2) AS g`
  yield* sql`INSERT INTO releases (repo_id, publisher_id, tag_name, lower_tag_name, target, title, note, is_draft,
      is_prerelease, hide_archive_links, created_at)
    SELECT id, 1, 'v' || g, 'v' || g, 'main', '', '', g = 3, false, false, 0 FROM repositories CROSS JOIN generate_series(1, 3) AS g`
  yield* sql`INSERT INTO attachments (repo_id, release_id, uploader_id, name, size, sha256, created_at)
    SELECT rel.repo_id, rel.id, 1, 'a-' || g, rel.repo_id * 1000 + g * 2 ^ 33, '', 0
    FROM releases rel CROSS JOIN generate_series(1, 3) AS g WHERE rel.tag_name = 'v1'`
  yield* sql`INSERT INTO packages (owner_id, repo_id, type, name, lower_name)
    SELECT u.id, NULL, 'generic', 'own', 'own' FROM users u
    UNION ALL SELECT u.id, (SELECT min(r.id) FROM repositories r WHERE r.owner_id <> u.id), 'generic', 'linked', 'linked'
    FROM users u`
  yield* sql`INSERT INTO package_versions (package_id, creator_id, version, lower_version, created_at)
    SELECT p.id, 1, '1.' || g, '1.' || g, 0 FROM packages p CROSS JOIN generate_series(0, 2) AS g`
  yield* sql`INSERT INTO package_blobs (size, hash_md5, hash_sha1, hash_sha256, hash_sha512, created_at)
    SELECT 1, '', '', 'blob-' || v.id || '-' || g, '', 0
    FROM package_versions v CROSS JOIN generate_series(1, 2) AS g WHERE v.version <> '1.0'`
  yield* sql`INSERT INTO package_files (version_id, blob_id, name, lower_name, size, created_at)
    SELECT v.id, b.id, 'f-' || g, 'f-' || g, v.id * 10 + g, 0
    FROM package_versions v CROSS JOIN generate_series(1, 2) AS g
    JOIN package_blobs b ON b.hash_sha256 = 'blob-' || v.id || '-' || g`
})

layer(TestDatabase.layer, { timeout: "120 seconds" })("migration 0007 on existing rows", (it) => {
  it.effect("starts every total at the sum of the rows it stands for", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* Migrations.run(before0007)
      yield* seed
      yield* Migrations.run(loader)
      assert.deepStrictEqual(yield* driftedTotals, [])

      // The backfill had something to fill: bytes in every kind of total.
      const [filled] = yield* sql<{ attachments: unknown; releases: unknown; linked: unknown; unlinked: unknown; versions: unknown }>`SELECT
        (SELECT count(*) FROM repositories WHERE attachments_size > 0 AND attachments_count = 3) AS attachments,
        (SELECT count(*) FROM repositories WHERE num_releases = 2) AS releases,
        (SELECT count(*) FROM repositories WHERE packages_size > 0) AS linked,
        (SELECT count(*) FROM unlinked_package_usage WHERE size > 0) AS unlinked,
        (SELECT count(*) FROM package_versions WHERE size > 0) AS versions`
      assert.deepStrictEqual(
        [int(filled?.attachments), int(filled?.releases), int(filled?.linked), int(filled?.unlinked), int(filled?.versions)],
        [4, 4, 2, 2, 8]
      )

      yield* Effect.gen(function*() {
        const store = yield* QuotaStore
        const owners = yield* sql<{ id: unknown }>`SELECT id FROM users ORDER BY id`
        for (const owner of owners.map((row) => int(row.id))) {
          assert.deepStrictEqual(yield* store.usageOf(owner), yield* freshUsage(owner))
          const attachments = yield* store.listAttachments(owner, { page: 1, limit: 4 })
          const versions = yield* store.listPackages(owner, { page: 1, limit: 4 })
          assert.deepStrictEqual({
            attachments: attachments.items.map((item) => [item.id, item.size]),
            attachmentTotal: attachments.total,
            versions: versions.items.map((item) => [item.id, item.size]),
            versionTotal: versions.total
          }, yield* freshLists(owner, 4))
        }
      }).pipe(Effect.provide(QuotaStoreSql.layer))
    }))
})
