/**
 * Issue 20, item 7: `kiln dump` and `kiln restore` against `tar czf` and `tar xzf` of the same data
 * directory (embedded database, no server running), in the same run. The data: GitScenario's
 * generated repository (about 30 MB, one pack) under a repository row, `--users` accounts and
 * 100,000 repository rows (rows only: their directories would be 100,000 empty repositories). Each
 * command runs under `/usr/bin/time` for its wall time and peak resident memory. Memory is checked
 * for flatness by dumping a second data directory with a tenth of the rows.
 * Targets: dump ≤ 2× tar czf, restore ≤ 2× tar xzf, the dump's peak memory within 25% of the small
 * one's.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { ensureFreshBundle } from "../../build/FreshBundle.ts"
import { prepareTemplates } from "../../build/ServerBundle.ts"
import * as BenchDatabase from "../BenchDatabase.ts"
import type { Admin } from "../KilnServer.ts"
import { below, type BenchSettings, type DatabaseReport, perDatabase, within } from "../Scenario.ts"
import { seedUsers } from "../Seed.ts"
import { generate, gitEnv } from "./GitScenario.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }
const REPOSITORY_ROWS = 100_000
// `pnpm kiln` as an operator runs it: the bundled command line, behind its freshness check.
const cliRun = new URL("../../build/run.ts", import.meta.url).pathname

interface Measured {
  readonly seconds: number
  readonly peakBytes: number
}

/** Runs a command under /usr/bin/time: wall seconds and peak resident memory. */
const timed = (command: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env) =>
  new Promise<Measured>((resolve, reject) => {
    const child = ChildProcess.spawn("/usr/bin/time", ["-f", "KILN_TIME %e %M", command, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += String(chunk)))
    child.stderr.on("data", (chunk) => (output += String(chunk)))
    child.on("error", reject)
    child.on("close", (code) => {
      const match = /KILN_TIME ([\d.]+) (\d+)/.exec(output)
      if (code !== 0 || match === null) return reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${output.slice(-2_000)}`))
      resolve({ seconds: Number(match[1]), peakBytes: Number(match[2]) * 1024 })
    })
  })

const kiln = (args: ReadonlyArray<string>, dataDir: string) =>
  timed(process.execPath, [cliRun, "kiln", ...args], { ...process.env, KILN_DATA_DIR: dataDir, KILN_SIGNING_KEY: "none" })

/** `rows` repository rows spread over the seeded accounts, and a row for the generated repository. */
const addRepositoryRows = (location: BenchDatabase.DatabaseLocation, rows: number) =>
  Effect.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const owners = yield* sql<{ readonly id: string }>`SELECT id::text AS id FROM users WHERE kind = 'individual' ORDER BY id`
    const adminId = owners[0]?.id ?? "1"
    yield* sql`INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, units, is_empty, created_at, updated_at)
      VALUES (${adminId}::bigint, 'bench', 'bench', 'main', 'master', '[]'::jsonb, false, 1700000000, 1700000000)`
    yield* sql`WITH owners AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM users WHERE kind = 'individual')
      INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, units, created_at, updated_at)
      SELECT o.id, 'repo-' || g, 'repo-' || g, 'main', 'master', '[]'::jsonb, 1700000000, 1700000000
      FROM generate_series(1, ${rows}) g JOIN owners o ON o.n = g % ${owners.length}`
  }).pipe(Effect.scoped, Effect.provide(Layer.fresh(BenchDatabase.clientLayer(location)))))

const directoryBytes = (path: string): number =>
  Fs.readdirSync(path, { withFileTypes: true }).reduce((sum, entry) => {
    const child = Path.join(path, entry.name)
    return sum + (entry.isDirectory() ? directoryBytes(child) : entry.isFile() ? Fs.statSync(child).size : 0)
  }, 0)

/** A data directory with the generated repository, `users` accounts and `rows` repository rows. */
const prepare = async (settings: BenchSettings, source: string, users: number, rows: number) => {
  const database = await BenchDatabase.create("embedded", settings.postgresUrl)
  await seedUsers(database, admin, users)
  await addRepositoryRows(database, rows)
  Fs.cpSync(source, Path.join(database.dataDir, "repositories", admin.username, "bench.git"), { recursive: true })
  return database
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`

const runOn = async (settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "kiln-bench-backup-"))
  const notes: Array<string> = []
  // Bundled before any command is timed, as a server's first start or any `pnpm kiln` would have; the
  // build also made the templates a new embedded database is copied from (kept apart from the
  // bundle, so made again here if they were removed since).
  await ensureFreshBundle()
  prepareTemplates()
  try {
    const env = gitEnv(Path.join(work, "home"))
    Fs.mkdirSync(Path.join(work, "home"))
    const source = await generate(work, env)
    log(`[embedded] seeding ${settings.users} users and ${REPOSITORY_ROWS} repository rows`)
    const large = await prepare(settings, source, settings.users, REPOSITORY_ROWS)
    const small = await prepare(settings, source, Math.max(1, Math.round(settings.users / 10)), REPOSITORY_ROWS / 10)
    try {
      const dataBytes = directoryBytes(large.dataDir)
      notes.push(`data directory: ${mb(dataBytes)} (${settings.users} users, ${REPOSITORY_ROWS} repository rows, one ${mb(directoryBytes(source))} repository)`)

      const tarFile = Path.join(work, "data.tar.gz")
      const tarCreate = await timed("tar", ["czf", tarFile, "-C", large.dataDir, "."])
      const dumpFile = Path.join(work, "kiln.tar.gz")
      const dump = await kiln(["dump", "--output", dumpFile], large.dataDir)
      const smallDump = await kiln(["dump", "--output", Path.join(work, "small.tar.gz")], small.dataDir)

      const tarTarget = Fs.mkdtempSync(Path.join(work, "untar-"))
      const tarExtract = await timed("tar", ["xzf", tarFile, "-C", tarTarget])
      const restoreTarget = Path.join(work, "restored")
      const restore = await kiln(["restore", "--input", dumpFile], restoreTarget)

      const line = (label: string, measured: Measured, bytes?: number) =>
        `${label.padEnd(26)} ${measured.seconds.toFixed(2).padStart(7)} s  peak ${mb(measured.peakBytes).padStart(9)}${bytes === undefined ? "" : `  ${mb(bytes)}`}`
      notes.push(
        line("tar czf", tarCreate, Fs.statSync(tarFile).size),
        line("kiln dump", dump, Fs.statSync(dumpFile).size),
        line("kiln dump (a tenth of rows)", smallDump),
        line("tar xzf", tarExtract),
        line("kiln restore", restore)
      )
      for (const note of notes.slice(-5)) log(`[embedded] ${note}`)
      return {
        database: "embedded",
        loads: [],
        comparisons: [],
        notes,
        targets: [
          below("kiln dump seconds / tar czf seconds", dump.seconds / tarCreate.seconds, 2, true),
          below("kiln restore seconds / tar xzf seconds", restore.seconds / tarExtract.seconds, 2, true),
          within("kiln dump peak memory, 10× rows / 1× rows", dump.peakBytes / smallDump.peakBytes, 0.25, true)
        ]
      }
    } finally {
      await large.dispose()
      await small.dispose()
    }
  } finally {
    Fs.rmSync(work, { recursive: true, force: true })
  }
}

export const scenario = perDatabase(
  "backup",
  "kiln dump / kiln restore against tar czf / tar xzf of the same data directory (embedded database)",
  async (kind, settings, log) => {
    if (kind !== "embedded") throw new Error("the backup scenario compares with tar of the data directory: embedded database only")
    return runOn(settings, log)
  },
  1
)
