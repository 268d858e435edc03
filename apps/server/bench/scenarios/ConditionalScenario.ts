/**
 * Issue 21, point 7: `GET /repos/{owner}/{repo}` with a matching `If-None-Match` (every path with its
 * own tag, answered 304) at the configured connections, in the same run as the plain get-repo load
 * (token-authenticated) and `/version`; then the same get-repo load on a server whose rate limiter
 * is on for signed-in callers (a budget no load exhausts).
 * Targets: the 304 path ≥ 80 % of /version's req/s; the limiter costs ≤ 5 % of get-repo's req/s
 * (on Postgres; reported for the embedded database).
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as Path from "node:path"
import * as Migrations from "@kiln/postgres/migrations"
import * as BenchDatabase from "../BenchDatabase.ts"
import type { ChildServer } from "../ChildServer.ts"
import { type Admin, createToken, startKiln } from "../KilnServer.ts"
import { type LoadResult, type LoadSpec, runLoad } from "../LoadGenerator.ts"
import { atLeast, type BenchSettings, compare, type DatabaseReport, perDatabase, type Scenario, type TargetCheck, validity } from "../Scenario.ts"
import { seedUsers, userName } from "../Seed.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }

const OWNERS = 100
const REPOSITORIES = 2_000

const units = JSON.stringify({ enabled: ["repo.code", "repo.issues", "repo.pulls", "repo.releases", "repo.wiki"] })

/** `repo-<i>` owned by `bench-user-<(i - 1) % OWNERS + 1>`, all public. */
const seedRepositories = (location: BenchDatabase.DatabaseLocation) => {
  const program = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO repositories (owner_id, name, lower_name, description, default_branch, wiki_branch,
        is_private, is_empty, units, created_at, updated_at)
      SELECT o.id, 'repo-' || g, 'repo-' || g, 'a benchmark repository numbered ' || g, 'main', 'main', false, false,
        ${units}::jsonb, 1700000000 + g, 1700000000 + g
      FROM generate_series(1, ${REPOSITORIES}) AS g
      JOIN users o ON o.lower_name = 'bench-user-' || lpad(((g - 1) % ${OWNERS} + 1)::text, 5, '0')`
    yield* sql`ANALYZE users, repositories`
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

/** Each path's entity tag, as a client that fetched it once holds it. */
const tagsOf = async (baseUrl: string, paths: ReadonlyArray<string>, headers: Record<string, string>) => {
  const tags: Record<string, Record<string, string>> = {}
  for (const path of paths) {
    const response = await fetch(`${baseUrl}${path}`, { headers })
    await response.arrayBuffer()
    const etag = response.headers.get("etag")
    if (response.status !== 200 || etag === null) throw new Error(`${path} answered ${response.status} without a tag`)
    tags[path] = { "if-none-match": etag }
  }
  return tags
}

const runOn = async (kind: BenchDatabase.DatabaseKind, settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const notes: Array<string> = []
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  try {
    const started = performance.now()
    await seedUsers(database, admin, OWNERS)
    await seedRepositories(database)
    notes.push(`seeded ${OWNERS} owners and ${REPOSITORIES} repositories in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    log(`[${kind}] ${notes[0]}`)
    const repoPaths = Array.from({ length: 500 }, (_, i) => {
      const index = (i * 7) % REPOSITORIES + 1
      return `/api/v1/repos/${userName((index - 1) % OWNERS + 1)}/repo-${index}`
    })

    const load = (label: string, server: ChildServer, paths: ReadonlyArray<string>, extra: Partial<LoadSpec> = {}) => {
      log(`[${kind}] ${label} (${settings.connections} connections)`)
      return runLoad({
        label,
        baseUrl: server.url,
        paths,
        connections: settings.connections,
        warmupSeconds: settings.warmupSeconds,
        windows: settings.windows,
        windowSeconds: settings.seconds / settings.windows,
        ...extra
      }, (window) =>
        log(`[${kind}]   window ${window.index + 1}: ${window.requestsPerSecond.toFixed(0)} req/s, ` +
          `p50 ${window.p50Ms.toFixed(2)} ms, p99 ${window.p99Ms.toFixed(2)} ms` +
          (window.non2xx + window.errors > 0 ? `, ${window.non2xx} unexpected, ${window.errors} errors` : "")))
    }
    const logFile = Path.join(database.dataDir, "kiln.log")

    // Limiter off for signed-in callers (the default), as every other scenario runs.
    const off = await withServer(startKiln({ database, admin, logFile }), async (server) => {
      const token = await createToken(server.url, admin, "bench")
      const auth = { authorization: `token ${token}` }
      const tags = await tagsOf(server.url, repoPaths, auth)
      const version = await load("Kiln GET /version", server, ["/api/v1/version"])
      const get = await load("Kiln GET /repos/{owner}/{repo} (token)", server, repoPaths, { headers: auth })
      const notModified = await load("Kiln GET /repos/{owner}/{repo} (token, If-None-Match: 304)", server, repoPaths, {
        headers: auth,
        pathHeaders: tags,
        expectedStatus: 304
      })
      return { version, get, notModified, token }
    })

    // The limiter on for signed-in callers: a budget the load never exhausts, counted and shared all the same.
    const on = await withServer(
      startKiln({ database, admin, logFile, env: { KILN_RATE_LIMIT_AUTHENTICATED: "1000000000", KILN_RATE_LIMIT_ADMINS: "true" } }),
      async (server) => {
        const auth = { authorization: `token ${off.token}` }
        const probe = await fetch(`${server.url}${repoPaths[0] ?? ""}`, { headers: auth })
        await probe.arrayBuffer()
        if (probe.headers.get("x-ratelimit-limit") !== "1000000000") throw new Error("the rate limiter is not on for the token")
        return load("Kiln GET /repos/{owner}/{repo} (token, rate limiter on)", server, repoPaths, { headers: auth })
      }
    )

    const loads: ReadonlyArray<LoadResult> = [off.version, off.get, off.notModified, on]
    const enforced = kind === "postgres"
    const targets: Array<TargetCheck> = [
      atLeast("304 req/s ÷ /version req/s", off.notModified.requestsPerSecond / off.version.requestsPerSecond, 0.8, enforced),
      atLeast("get repo req/s with the limiter on ÷ off", on.requestsPerSecond / off.get.requestsPerSecond, 0.95, enforced),
      ...loads.flatMap(validity)
    ]
    return {
      database: kind,
      loads,
      comparisons: [compare(off.notModified, off.version), compare(off.notModified, off.get), compare(on, off.get)],
      targets,
      notes
    }
  } finally {
    await database.dispose()
  }
}

export const scenario: Scenario = perDatabase(
  "conditional",
  "GET /repos/{o}/{r} answered 304 against /version and the plain get-repo; get-repo with the rate limiter on",
  runOn
)
