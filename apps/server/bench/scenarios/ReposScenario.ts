/**
 * Issue 4, item 8: 100,000 repositories over 1,000 owners (KILN_BENCH_REPOS=1000000 for the
 * large variant). `GET /api/v1/repos/{owner}/{repo}` against the bare user-lookup server, and
 * `GET /api/v1/repos/search?q=<keyword>&limit=50` for a keyword matching many (10 %), few (about
 * 10) and no repositories — a rare keyword is where an `ORDER BY … LIMIT` plan would walk the
 * whole name index, so the plan of that query is kept in the notes, with the common keyword's page.
 * The common keyword's loads reuse a kept count (stores/RepositorySearchSql.ts); the plan of the
 * count itself, which a search pays before one is kept, is in the notes too.
 * Targets: get ≥ 55 % of the bare lookup's req/s on Postgres and ≥ 45 % on the embedded database
 * (issue 30, item 3); on Postgres, search p50 < 5 ms and p99 < 25 ms at 100,000 (p99 < 100 ms at
 * 1,000,000) for every keyword class.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as Path from "node:path"
import * as Migrations from "@kiln/postgres/migrations"
import * as BenchDatabase from "../BenchDatabase.ts"
import { startBareLookup } from "../Baselines.ts"
import type { ChildServer } from "../ChildServer.ts"
import { type Admin, startKiln } from "../KilnServer.ts"
import { type LoadResult, runLoad } from "../LoadGenerator.ts"
import {
  atLeast,
  below,
  type BenchSettings,
  compare,
  type DatabaseReport,
  type Scenario,
  type TargetCheck,
  validity, perDatabase } from "../Scenario.ts"
import { seedUsers, userName } from "../Seed.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }

const OWNERS = 1_000
const repositoryCount = (): number => {
  const wanted = Number(process.env["KILN_BENCH_REPOS"] ?? "100000")
  return Number.isInteger(wanted) && wanted >= OWNERS ? wanted : 100_000
}

/** Names `repo-<i>`, every tenth with `-common`, one in 10,000 with `-zebra`; every tenth private. */
export const repositoryName = (index: number): string =>
  `repo-${index}${index % 10 === 0 ? "-common" : ""}${index % 10_000 === 7 ? "-zebra" : ""}`

/** Search latency is judged with this many concurrent clients (64 would measure queueing: p50 = 64 ÷ req/s). */
const SEARCH_CONNECTIONS = 4

const keywords = [
  { label: "many (10 %)", keyword: "common" },
  { label: "few (1 in 10,000)", keyword: "zebra" },
  { label: "none", keyword: "absentkeyword" }
] as const

const units = JSON.stringify({ enabled: ["repo.code", "repo.issues", "repo.pulls", "repo.releases", "repo.wiki"] })

/** Inserts `count` repositories over the first `owners` seeded users straight into the table in one statement (the disk is not involved in reads). */
export const seedRepositories = (location: BenchDatabase.DatabaseLocation, count: number, owners = OWNERS) => {
  const program = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO repositories (owner_id, name, lower_name, description, default_branch, wiki_branch,
        is_private, is_empty, units, created_at, updated_at)
      SELECT o.id, n.name, n.name, 'a benchmark repository numbered ' || g, 'main', 'main', g % 10 = 3, false,
        ${units}::jsonb, 1700000000 + g, 1700000000 + g
      FROM generate_series(1, ${count}) AS g
      CROSS JOIN LATERAL (SELECT 'repo-' || g || CASE WHEN g % 10 = 0 THEN '-common' ELSE '' END
        || CASE WHEN g % 10000 = 7 THEN '-zebra' ELSE '' END AS name) n
      JOIN users o ON o.lower_name = 'bench-user-' || lpad(((g - 1) % ${owners} + 1)::text, 5, '0')`
    // Statistics as a running instance has them: autovacuum has not visited the fresh tables yet (and
    // is off on some test servers). The users' matter too: without them Postgres guesses that the
    // hidden-owner anti-join drops nearly every repository, and plans the common keyword's page as a
    // sort of all its 10,000 matches (25 ms) instead of a walk of the name index.
    yield* sql`ANALYZE users, repositories`
    // The shapes of RepositorySearchSql for an anonymous caller: the pages of a rare and a common
    // keyword, and the count a common keyword needs before a count is kept (what the first such
    // search pays).
    const publicOnly = sql`NOT r.is_private AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = r.owner_id AND u.visibility <> 'public')`
    const plan = yield* sql<{ "QUERY PLAN": string }>`EXPLAIN ANALYZE SELECT r.id FROM repositories r
      WHERE ${publicOnly} AND r.lower_name LIKE '%zebra%' ORDER BY r.lower_name, r.id LIMIT 50`
    const commonPlan = yield* sql<{ "QUERY PLAN": string }>`EXPLAIN ANALYZE SELECT r.id FROM repositories r
      JOIN users o ON o.id = r.owner_id
      WHERE ${publicOnly} AND r.lower_name LIKE '%common%' ORDER BY r.lower_name, r.id LIMIT 50`
    const countPlan = yield* sql<{ "QUERY PLAN": string }>`EXPLAIN ANALYZE SELECT count(*) FROM repositories r
      WHERE ${publicOnly} AND r.lower_name LIKE '%common%'`
    return [...plan, ...commonPlan, ...countPlan].map((row) => row["QUERY PLAN"]).join("\n")
  })
  const database = Migrations.layer.pipe(Layer.provideMerge(BenchDatabase.clientLayer(location)))
  return Effect.runPromise(Effect.scoped(program.pipe(Effect.provide(database))))
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
  const count = repositoryCount()
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  try {
    let started = performance.now()
    const owners = await seedUsers(database, admin, OWNERS)
    const plan = await seedRepositories(database, count)
    notes.push(`seeded ${owners.length} owners and ${count} repositories in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    notes.push(`rare-keyword page, common-keyword page and common-keyword count plans:\n${plan}`)
    log(`[${kind}] ${notes[0]}`)
    log(`[${kind}] ${plan}`)

    // Public repositories only, so anonymous requests see them all.
    const repoPaths = Array.from({ length: 2_000 }, (_, i) => {
      const index = (i * 7_919) % count + 1
      const publicIndex = index % 10 === 3 ? index + 1 : index
      return `/api/v1/repos/${userName((publicIndex - 1) % OWNERS + 1)}/${repositoryName(publicIndex)}`
    })
    const userPaths = Array.from({ length: 2_000 }, (_, i) => `/api/v1/users/${userName(i % OWNERS + 1)}`)
    const load = (label: string, server: ChildServer, paths: ReadonlyArray<string>, connections = settings.connections) => {
      log(`[${kind}] ${label} (${connections} connections)`)
      return runLoad({
        label,
        baseUrl: server.url,
        paths,
        connections,
        warmupSeconds: settings.warmupSeconds,
        windows: settings.windows,
        windowSeconds: settings.seconds / settings.windows
      }, (window) =>
        log(`[${kind}]   window ${window.index + 1}: ${window.requestsPerSecond.toFixed(0)} req/s, ` +
          `p50 ${window.p50Ms.toFixed(2)} ms, p99 ${window.p99Ms.toFixed(2)} ms`), () => {},
        { pid: server.pid, databaseName: BenchDatabase.serverDatabaseName(database) })
    }

    started = performance.now()
    const nodeFlags = settings.cpuProfileDir === undefined
      ? []
      : ["--cpu-prof", "--cpu-prof-dir", Path.join(settings.cpuProfileDir, `repos-${kind}`)]
    const kiln = await withServer(
      startKiln({ database, admin, logFile: Path.join(database.dataDir, "kiln.log"), nodeFlags }),
      async (server) => {
        const get = await load("Kiln GET /repos/{owner}/{repo}", server, repoPaths)
        const searches: Array<LoadResult> = []
        for (const { label, keyword } of keywords) {
          // Latency targets: measured at SEARCH_CONNECTIONS, where waiting in line does not dominate.
          searches.push(await load(`Kiln GET /repos/search q=${keyword} (${label})`, server, [
            `/api/v1/repos/search?q=${keyword}&limit=50`
          ], SEARCH_CONNECTIONS))
        }
        return { get, searches }
      }
    )
    const lookup = await withServer(startBareLookup(database), (server) => load("bare lookup (node:http + same client)", server, userPaths))

    const enforced = kind === "postgres"
    const p99Limit = count >= 1_000_000 ? 100 : 25
    const targets: Array<TargetCheck> = [
      atLeast("get repo req/s ÷ bare lookup req/s", kiln.get.requestsPerSecond / lookup.requestsPerSecond, enforced ? 0.55 : 0.45, true),
      ...kiln.searches.flatMap((search) => [
        ...(count >= 1_000_000 ? [] : [below(`${search.label}: p50 ms`, search.p50Ms, 5, enforced)]),
        below(`${search.label}: p99 ms`, search.p99Ms, p99Limit, enforced)
      ]),
      ...[kiln.get, ...kiln.searches, lookup].flatMap(validity)
    ]
    return {
      database: kind,
      loads: [kiln.get, ...kiln.searches, lookup],
      comparisons: [compare(kiln.get, lookup)],
      targets,
      notes
    }
  } finally {
    await database.dispose()
  }
}

export const scenario: Scenario = perDatabase(
  "repos",
  "GET /repos/{owner}/{repo} and GET /repos/search (many, few, no matches) over 100,000 repositories",
  runOn
)
