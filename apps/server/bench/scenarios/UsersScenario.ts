/**
 * Issue 2, item 11: `GET /api/v1/users/{username}` (random seeded users, token-authenticated) and
 * `GET /api/v1/version` on Kiln, against a bare `node:http` server doing the same user lookup with
 * the same database client and one answering a JSON body of the same size.
 * Targets (on Postgres): users ≥ 55 % of the bare lookup's req/s, version ≥ 55 % of the bare
 * JSON server's (issue 30, item 3), p99 < 20 ms at 64 connections.
 * Each load also notes the CPU one request cost the server, Postgres and the load generator: the
 * rates move with the machine, the CPU per request much less, and it says where a gap lies.
 */
import * as Path from "node:path"
import * as BenchDatabase from "../BenchDatabase.ts"
import { startBareJson, startBareLookup } from "../Baselines.ts"
import type { ChildServer } from "../ChildServer.ts"
import { type Admin, bodySize, createToken, startKiln } from "../KilnServer.ts"
import { type LoadResult, type LoadSpec, runLoad } from "../LoadGenerator.ts"
import { type CpuDuringLoad, serverSeconds, withCpu } from "../LoadCpu.ts"
import {
  atLeast,
  below,
  type BenchSettings,
  compare,
  type DatabaseReport,
  type Scenario,
  type TargetCheck,
  validity, perDatabase } from "../Scenario.ts"
import { seedUsers } from "../Seed.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }

const withServer = async <A>(start: Promise<ChildServer>, use: (server: ChildServer) => Promise<A>): Promise<A> => {
  const server = await start
  try {
    return await use(server)
  } finally {
    await server.stop()
  }
}

/** The server's CPU microseconds per answered request over the measured windows. */
const serverCpuPerRequest = (measured: CpuDuringLoad): number | undefined => {
  const seconds = serverSeconds(measured)
  return seconds === undefined ? undefined : (seconds * 1e6) / Math.max(1, measured.load.requests)
}

const cpuNote = (measured: CpuDuringLoad): string => {
  const requests = Math.max(1, measured.load.requests)
  const micros = (seconds: number) => ((seconds * 1e6) / requests).toFixed(0)
  const threads = measured.server === undefined
    ? []
    : [...measured.server].filter(([, seconds]) => seconds > 0).map(([group, seconds]) => `${group} ${micros(seconds)}`)
  const parts = [
    ...threads,
    ...(measured.database === undefined ? [] : [`Postgres ${micros(measured.database)}`]),
    `load generator ${micros(measured.load.generatorCpuSeconds)}`
  ]
  return `${measured.load.label}: CPU µs per request: ${parts.join(", ")}`
}

const runOn = async (
  kind: BenchDatabase.DatabaseKind,
  settings: BenchSettings,
  log: (line: string) => void
): Promise<DatabaseReport> => {
  const notes: Array<string> = []
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  try {
    const seedStarted = performance.now()
    const names = await seedUsers(database, admin, settings.users)
    notes.push(`seeded ${names.length} users in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`)
    log(`[${kind}] ${notes[notes.length - 1]}`)

    const userPaths = names.map((name) => `/api/v1/users/${name}`)
    const databaseName = BenchDatabase.serverDatabaseName(database)
    const load = (label: string, server: ChildServer, paths: ReadonlyArray<string>, headers?: Record<string, string>) => {
      const spec: LoadSpec = {
        label,
        baseUrl: server.url,
        paths,
        connections: settings.connections,
        warmupSeconds: settings.warmupSeconds,
        windows: settings.windows,
        windowSeconds: settings.seconds / settings.windows,
        ...(headers === undefined ? {} : { headers })
      }
      log(`[${kind}] ${label}: ${settings.warmupSeconds} s warm-up or more, ${settings.windows} × ${spec.windowSeconds} s`)
      return withCpu(server.pid, databaseName, (onMeasuring) =>
        runLoad(spec, (window) =>
          log(
            `[${kind}]   window ${window.index + 1}: ${window.requestsPerSecond.toFixed(0)} req/s, ` +
              `p50 ${window.p50Ms.toFixed(2)} ms, p99 ${window.p99Ms.toFixed(2)} ms` +
              (window.non2xx + window.errors > 0 ? `, ${window.non2xx} non-2xx, ${window.errors} errors` : "")
          ), onMeasuring, { pid: server.pid, databaseName }))
    }

    const nodeFlags = settings.cpuProfileDir === undefined
      ? []
      // A directory per database: Kiln's worker threads write profiles of their own next to the main one.
      : ["--cpu-prof", "--cpu-prof-dir", Path.join(settings.cpuProfileDir, `users-${kind}`)]
    const kiln = await withServer(
      startKiln({ database, admin, logFile: Path.join(database.dataDir, "kiln.log"), nodeFlags }),
      async (server) => {
        const token = await createToken(server.url, admin, "bench")
        const auth = { authorization: `token ${token}` }
        const userBytes = await bodySize(`${server.url}${userPaths[0] ?? ""}`, auth)
        const versionBytes = await bodySize(`${server.url}/api/v1/version`)
        notes.push(`Kiln answers ${userBytes} B for a user, ${versionBytes} B for the version`)
        const users = await load("Kiln GET /users/{username}", server, userPaths, auth)
        const version = await load("Kiln GET /version", server, ["/api/v1/version"])
        return { users, version, userBytes, versionBytes }
      }
    )
    const lookup = await withServer(startBareLookup(database), (server) =>
      load("bare lookup (node:http + same client)", server, userPaths))
    const jsonLikeVersion = await withServer(startBareJson(kiln.versionBytes), (server) =>
      load(`bare JSON ${kiln.versionBytes} B (as /version)`, server, ["/api/v1/version"]))
    const jsonLikeUser = await withServer(startBareJson(kiln.userBytes), (server) =>
      load(`bare JSON ${kiln.userBytes} B (as a user)`, server, ["/api/v1/version"]))

    const measured: ReadonlyArray<CpuDuringLoad> = [kiln.users, kiln.version, lookup, jsonLikeVersion, jsonLikeUser]
    notes.push(...measured.map(cpuNote))
    const serverRatio = (kilnLoad: CpuDuringLoad, bare: CpuDuringLoad) => {
      const ours = serverCpuPerRequest(kilnLoad)
      const theirs = serverCpuPerRequest(bare)
      return ours === undefined || theirs === undefined || theirs === 0 ? "unknown" : (ours / theirs).toFixed(2)
    }
    notes.push(
      `server CPU per request, Kiln ÷ bare: GET user ÷ bare lookup ${serverRatio(kiln.users, lookup)}, ` +
        `GET /version ÷ bare JSON ${serverRatio(kiln.version, jsonLikeVersion)}`
    )
    const loads: ReadonlyArray<LoadResult> = measured.map(({ load }) => load)
    const enforced = kind === "postgres"
    const targets: Array<TargetCheck> = [
      atLeast("users req/s ÷ bare lookup req/s", kiln.users.load.requestsPerSecond / lookup.load.requestsPerSecond, 0.55, enforced),
      atLeast(
        "version req/s ÷ bare JSON req/s",
        kiln.version.load.requestsPerSecond / jsonLikeVersion.load.requestsPerSecond,
        0.55,
        enforced
      ),
      below("users p99 ms at 64 connections", kiln.users.load.p99Ms, 20, enforced),
      below("version p99 ms at 64 connections", kiln.version.load.p99Ms, 20, enforced),
      ...loads.flatMap(validity)
    ]
    return {
      database: kind,
      loads,
      comparisons: [
        compare(kiln.users.load, lookup.load),
        compare(kiln.version.load, jsonLikeVersion.load),
        compare(kiln.users.load, jsonLikeUser.load),
        compare(lookup.load, jsonLikeUser.load)
      ],
      targets,
      notes
    }
  } finally {
    await database.dispose()
  }
}

export const scenario: Scenario = perDatabase(
  "users",
  "GET /users/{username} (token) and GET /version against bare node:http baselines",
  runOn
)
