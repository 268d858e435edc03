/**
 * Issue 9, item 6: `GET /api/v1/user/quota` and `GET /api/v1/user/quota/check?subject=size:all` for an
 * owner with 1,000 repositories (a tenth of them private) among 100,000 repositories of 1,000 other
 * owners, in two quota groups of two rules each, token-authenticated as that owner.
 * It also has 100,000 release attachments (one release of 100 per repository) and 10,000 package
 * files (100 packages × 10 versions × 10 files), as rows inserted in bulk: usage reads the totals
 * the database keeps on write (migration 0007), not files.
 * Targets (on Postgres): p50 < 10 ms and p99 < 40 ms for both, judged at LATENCY_CONNECTIONS
 * concurrent clients (at 64 the p50 would measure waiting in line: 64 ÷ req/s). The first pages of
 * `/user/quota/attachments` and `/user/quota/packages` (largest first over all those rows) are
 * measured too, without a target.
 */
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Path from "node:path"
import { QuotaService } from "@kiln/domain/quota/QuotaService"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import { UserAccounts } from "@kiln/domain/user/UserAccounts"
import * as Migrations from "@kiln/postgres/migrations"
import * as Application from "../../src/Application.ts"
import * as BenchDatabase from "../BenchDatabase.ts"
import type { ChildServer } from "../ChildServer.ts"
import { type Admin, bodySize, createToken, startKiln } from "../KilnServer.ts"
import { type LoadResult, runLoad } from "../LoadGenerator.ts"
import { below, type BenchSettings, type DatabaseReport, type Scenario, type TargetCheck, validity, perDatabase } from "../Scenario.ts"
import { seedUsers } from "../Seed.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }
const owner: Admin = { username: "bench-quota-owner", password: "bench-quota-owner-password", email: "quota-owner@bench.invalid" }

const OWNER_REPOSITORIES = 1_000
const ATTACHMENTS_PER_RELEASE = 100
const OTHER_OWNERS = 1_000
const OTHER_REPOSITORIES = 100_000
const LATENCY_CONNECTIONS = 4

const units = JSON.stringify({ enabled: ["repo.code"] })

/**
 * The owner (with a password, to sign in for its token), its repositories with sizes, everybody
 * else's, and its quota groups, straight through the application layer and SQL while no server runs.
 */
const seedQuota = (location: BenchDatabase.DatabaseLocation) => {
  const program = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* UserAccounts
    const quota = yield* QuotaService
    const store = yield* QuotaStore
    const account = yield* accounts.create({
      username: owner.username,
      email: owner.email,
      password: Redacted.make(owner.password),
      mustChangePassword: false
    })
    yield* sql`INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, is_private, is_empty,
        size, units, created_at, updated_at)
      SELECT ${account.id}, 'quota-repo-' || g, 'quota-repo-' || g, 'main', 'main', g % 10 = 3, false,
        1024 * (g % 97 + 1), ${units}::jsonb, 1700000000 + g, 1700000000 + g
      FROM generate_series(1, ${OWNER_REPOSITORIES}) AS g`
    yield* sql`INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, is_private, is_empty,
        size, units, created_at, updated_at)
      SELECT o.id, 'other-' || g, 'other-' || g, 'main', 'main', g % 10 = 3, false, 4096 + g, ${units}::jsonb,
        1700000000 + g, 1700000000 + g
      FROM generate_series(1, ${OTHER_REPOSITORIES}) AS g
      JOIN users o ON o.lower_name = 'bench-user-' || lpad(((g - 1) % ${OTHER_OWNERS} + 1)::text, 5, '0')`
    yield* sql`INSERT INTO releases (repo_id, publisher_id, tag_name, lower_tag_name, target, title, note, is_draft,
        is_prerelease, hide_archive_links, created_at)
      SELECT r.id, ${account.id}, 'v1', 'v1', 'main', 'v1', '', false, false, false, 1700000000
      FROM repositories r WHERE r.owner_id = ${account.id}`
    yield* sql`INSERT INTO attachments (repo_id, release_id, uploader_id, name, size, sha256, created_at)
      SELECT rel.repo_id, rel.id, ${account.id}, 'asset-' || g || '.bin', 1000 + g, '', 1700000000
      FROM releases rel JOIN repositories r ON r.id = rel.repo_id AND r.owner_id = ${account.id}
      CROSS JOIN generate_series(1, ${ATTACHMENTS_PER_RELEASE}) AS g`
    yield* sql`INSERT INTO packages (owner_id, type, name, lower_name)
      SELECT ${account.id}, 'generic', 'package-' || p, 'package-' || p FROM generate_series(1, 100) AS p`
    yield* sql`INSERT INTO package_versions (package_id, creator_id, version, lower_version, created_at)
      SELECT pk.id, ${account.id}, '1.0.' || v, '1.0.' || v, 1700000000
      FROM packages pk CROSS JOIN generate_series(1, 10) AS v WHERE pk.owner_id = ${account.id}`
    yield* sql`INSERT INTO package_blobs (size, hash_md5, hash_sha1, hash_sha256, hash_sha512, created_at)
      SELECT 5000 + g, '', '', 'bench-blob-' || g, '', 1700000000 FROM generate_series(1, 10000) AS g`
    yield* sql`INSERT INTO package_files (version_id, blob_id, name, lower_name, size, created_at)
      SELECT pv.id, b.id, 'file-' || f || '.tgz', 'file-' || f || '.tgz', b.size, 1700000000
      FROM (SELECT pv.id, row_number() OVER (ORDER BY pv.id) AS n FROM package_versions pv
            JOIN packages pk ON pk.id = pv.package_id WHERE pk.owner_id = ${account.id}) AS pv
      CROSS JOIN generate_series(1, 10) AS f
      JOIN package_blobs b ON b.hash_sha256 = 'bench-blob-' || ((pv.n - 1) * 10 + f)`
    yield* sql`ANALYZE repositories`
    yield* sql`ANALYZE attachments`
    yield* sql`ANALYZE package_files`
    yield* quota.createGroup({
      name: "bench-git",
      rules: [
        { name: "bench-git-all", limit: 10 * 1024 ** 3, subjects: ["size:git:all"] },
        { name: "bench-repos-private", limit: 1024 ** 3, subjects: ["size:repos:private"] }
      ]
    })
    yield* quota.createGroup({
      name: "bench-all",
      rules: [
        { name: "bench-everything", limit: 20 * 1024 ** 3, subjects: ["size:all"] },
        { name: "bench-assets", limit: 1024 ** 3, subjects: ["size:assets:all"] }
      ]
    })
    yield* Effect.orDie(store.setUserGroups(account.id, ["bench-git", "bench-all"]))
    const plan = yield* sql<{ "QUERY PLAN": string }>`EXPLAIN ANALYZE SELECT
        COALESCE(sum(size) FILTER (WHERE NOT is_private), 0), COALESCE(sum(size) FILTER (WHERE is_private), 0),
        COALESCE(sum(attachments_size), 0),
        COALESCE(sum(packages_size), 0) + COALESCE((SELECT size FROM unlinked_package_usage WHERE owner_id = ${account.id}), 0)
      FROM repositories WHERE owner_id = ${account.id}`
    return plan.map((row) => row["QUERY PLAN"]).join("\n")
  })
  const database = Migrations.layer.pipe(Layer.provideMerge(BenchDatabase.clientLayer(location)))
  return Effect.runPromise(Effect.scoped(program.pipe(Effect.provide(Application.layer.pipe(Layer.provideMerge(database))))))
}

const withServer = async <A>(start: Promise<ChildServer>, use: (server: ChildServer) => Promise<A>): Promise<A> => {
  const server = await start
  try {
    return await use(server)
  } finally {
    await server.stop()
  }
}

const runOn = async (kind: BenchDatabase.DatabaseKind, settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const notes: Array<string> = []
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  try {
    const started = performance.now()
    await seedUsers(database, admin, OTHER_OWNERS)
    const plan = await seedQuota(database)
    notes.push(
      `seeded the owner with ${OWNER_REPOSITORIES} repositories, ${OTHER_REPOSITORIES} repositories of ${OTHER_OWNERS} ` +
        `other owners and 2 groups of 2 rules in ${((performance.now() - started) / 1000).toFixed(1)} s`
    )
    notes.push(`with ${OWNER_REPOSITORIES * ATTACHMENTS_PER_RELEASE} release attachments and 10,000 package files`)
    notes.push(`usage plan:\n${plan}`)
    log(`[${kind}] ${notes[0]}`)
    log(`[${kind}] ${plan}`)

    const load = (label: string, server: ChildServer, path: string, headers: Record<string, string>) => {
      log(`[${kind}] ${label} (${LATENCY_CONNECTIONS} connections)`)
      return runLoad({
        label,
        baseUrl: server.url,
        paths: [path],
        headers,
        connections: LATENCY_CONNECTIONS,
        warmupSeconds: settings.warmupSeconds,
        windows: settings.windows,
        windowSeconds: settings.seconds / settings.windows
      }, (window) =>
        log(`[${kind}]   window ${window.index + 1}: ${window.requestsPerSecond.toFixed(0)} req/s, ` +
          `p50 ${window.p50Ms.toFixed(2)} ms, p99 ${window.p99Ms.toFixed(2)} ms` +
          (window.non2xx + window.errors > 0 ? `, ${window.non2xx} non-2xx, ${window.errors} errors` : "")))
    }

    const loads = await withServer(
      startKiln({ database, admin, logFile: Path.join(database.dataDir, "kiln.log") }),
      async (server) => {
        const auth = { authorization: `token ${await createToken(server.url, owner, "bench-quota")}` }
        const check = await fetch(`${server.url}/api/v1/user/quota/check?subject=size:all`, { headers: auth })
        notes.push(`GET /user/quota is ${await bodySize(`${server.url}/api/v1/user/quota`, auth)} B; the check answers ${await check.text()}`)
        const info = await load("Kiln GET /user/quota", server, "/api/v1/user/quota", auth)
        const checked = await load("Kiln GET /user/quota/check?subject=size:all", server, "/api/v1/user/quota/check?subject=size:all", auth)
        const attachments = await load("Kiln GET /user/quota/attachments", server, "/api/v1/user/quota/attachments", auth)
        const packages = await load("Kiln GET /user/quota/packages", server, "/api/v1/user/quota/packages", auth)
        return { targeted: [info, checked], listings: [attachments, packages] }
      }
    )

    const enforced = kind === "postgres"
    const targets: Array<TargetCheck> = [
      ...loads.targeted.flatMap((result: LoadResult) => [
        below(`${result.label}: p50 ms`, result.p50Ms, 10, enforced),
        below(`${result.label}: p99 ms`, result.p99Ms, 40, enforced)
      ]),
      ...[...loads.targeted, ...loads.listings].flatMap(validity)
    ]
    return { database: kind, loads: [...loads.targeted, ...loads.listings], comparisons: [], targets, notes }
  } finally {
    await database.dispose()
  }
}

export const scenario: Scenario = perDatabase(
  "quota",
  "GET /user/quota, /user/quota/check?subject=size:all and the attachment and package lists for an owner of 1,000 repositories in 2 quota groups",
  runOn
)
