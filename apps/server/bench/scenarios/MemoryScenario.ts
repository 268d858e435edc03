/**
 * Issue 30, item 5: the resident memory of the embedded server (PGlite, the default) on a data
 * directory holding 10,000 users and 10,000 repositories (`--users` sets both): its peak while
 * starting (VmHWM once it answers) and its resident memory after idling `IDLE_SECONDS` (VmRSS),
 * over `STARTS` starts of the bundled server, each on a fresh copy of the seeded data directory.
 * The idle memory is split by mapping (/proc/<pid>/smaps, residentByKind).
 *
 * Seeding takes a while (accounts through the store), so the seeded directory is kept in the system's
 * temporary directory, keyed by the counts and the schema's fingerprint, and reused by later runs.
 * Targets: idle ≤ 200 MB, peak ≤ 400 MB. Memory does not depend on the machine's load, so they are
 * enforced.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { createHash } from "node:crypto"
import type { DatabaseLocation } from "../BenchDatabase.ts"
import { type Admin, startKiln } from "../KilnServer.ts"
import { below, type BenchSettings, type DatabaseReport, type Scenario } from "../Scenario.ts"
import { seedUsers } from "../Seed.ts"
import { seedRepositories } from "./ReposScenario.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }

const STARTS = 3
const IDLE_SECONDS = 5
const SAMPLE_MILLIS = 25
const MiB = 1024 * 1024
/** Figures are reported in MB (10^6 bytes), as the targets are set. */
const MB = 1_000_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** `VmRSS` and `VmHWM` of `pid`, in bytes; undefined once it is gone. */
const status = (pid: number): { readonly rss: number; readonly hwm: number } | undefined => {
  try {
    const text = Fs.readFileSync(`/proc/${pid}/status`, "utf8")
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? "0") * 1024
    return { rss: field("VmRSS"), hwm: field("VmHWM") }
  } catch {
    return undefined
  }
}

/**
 * Resident bytes of `pid` by kind of mapping: PGlite's WebAssembly memory (the accessible part of a
 * reservation: an anonymous read-write mapping followed at once by several GiB of inaccessible guard
 * region), compiled WebAssembly code (anonymous read-write-execute mappings), the node binary (file
 * pages shared with other processes), and the rest (Node's heaps, malloc, stacks).
 */
const residentByKind = (pid: number) => {
  interface Mapping {
    readonly start: number
    readonly end: number
    readonly perms: string
    readonly path: string
    rss: number
  }
  const mappings: Array<Mapping> = []
  for (const line of Fs.readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (header !== null) {
      mappings.push({
        start: Number.parseInt(header[1] ?? "0", 16),
        end: Number.parseInt(header[2] ?? "0", 16),
        perms: header[3] ?? "",
        path: header[4] ?? "",
        rss: 0
      })
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    const last = mappings[mappings.length - 1]
    if (rss !== null && last !== undefined) last.rss = Number(rss[1]) * 1024
  }
  const figures = { wasmMemory: 0, wasmCode: 0, nodeBinary: 0, other: 0 }
  mappings.forEach((mapping, index) => {
    const next = mappings[index + 1]
    const anonymous = mapping.path === ""
    if (anonymous && mapping.perms === "rw-p" && next !== undefined && next.start === mapping.end && next.perms === "---p" &&
      next.end - next.start >= 4 * 1024 * MiB) figures.wasmMemory += mapping.rss
    else if (anonymous && mapping.perms === "rwxp") figures.wasmCode += mapping.rss
    else if (mapping.path === Fs.realpathSync(process.execPath)) figures.nodeBinary += mapping.rss
    else figures.other += mapping.rss
  })
  return figures
}

/** The schema's fingerprint (it changes with every migration), so that a kept seed is of the current schema. */
const schemaKey = (): string =>
  createHash("sha256")
    .update(Fs.readFileSync(new URL("../../../../packages/postgres/src/migrations/Fingerprint.ts", import.meta.url)))
    .digest("hex")
    .slice(0, 12)

/** The seeded data directory, made once per counts and schema and kept for later runs. */
const seededDirectory = async (count: number, log: (line: string) => void): Promise<string> => {
  const directory = Path.join(Os.tmpdir(), `kiln-bench-memory-${count}-${schemaKey()}`)
  if (Fs.existsSync(Path.join(directory, "seeded"))) return directory
  Fs.rmSync(directory, { recursive: true, force: true })
  Fs.mkdirSync(directory, { recursive: true })
  const location: DatabaseLocation = { kind: "embedded", dataDir: directory }
  const started = performance.now()
  await seedUsers(location, admin, count)
  // One repository per user.
  await seedRepositories(location, count, count)
  Fs.writeFileSync(Path.join(directory, "seeded"), "")
  log(`seeded ${count} users and ${count} repositories in ${((performance.now() - started) / 1000).toFixed(1)} s (kept in ${directory})`)
  return directory
}

const copyOf = (source: string): string => {
  const target = Fs.mkdtempSync(Path.join(Os.tmpdir(), "kiln-bench-memory-run-"))
  ChildProcess.execFileSync("cp", ["-R", `${source}/.`, target])
  return target
}

interface StartFigures {
  readonly peak: number
  readonly idle: number
  readonly byKind: ReturnType<typeof residentByKind>
  readonly startMillis: number
}

const measureStart = async (seeded: string, settings: BenchSettings): Promise<StartFigures> => {
  const dataDir = copyOf(seeded)
  try {
    const started = performance.now()
    const nodeFlags = settings.cpuProfileDir === undefined
      ? []
      : ["--cpu-prof", "--cpu-prof-dir", Path.join(settings.cpuProfileDir, "memory-embedded")]
    const server = await startKiln({ database: { kind: "embedded", dataDir }, admin, logFile: Path.join(dataDir, "kiln.log"), nodeFlags })
    try {
      const startMillis = performance.now() - started
      // Kept sampling while idle: VmHWM is the kernel's own peak, the samples only show the shape.
      const until = Date.now() + IDLE_SECONDS * 1000
      while (Date.now() < until) {
        status(server.pid)
        await sleep(SAMPLE_MILLIS)
      }
      const figures = status(server.pid)
      if (figures === undefined) throw new Error("the server exited while idle")
      return { peak: figures.hwm, idle: figures.rss, byKind: residentByKind(server.pid), startMillis }
    } finally {
      await server.stop()
    }
  } finally {
    Fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

const mb = (bytes: number): string => `${(bytes / MB).toFixed(0)} MB`

const breakdown = (figures: ReturnType<typeof residentByKind>): string =>
  `WebAssembly memory ${mb(figures.wasmMemory)}, WebAssembly code ${mb(figures.wasmCode)}, ` +
  `node binary ${mb(figures.nodeBinary)}, the rest ${mb(figures.other)}`

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

const runEmbedded = async (settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const count = settings.users
  const seeded = await seededDirectory(count, log)
  const starts: Array<StartFigures> = []
  for (let index = 0; index < STARTS; index++) {
    const figures = await measureStart(seeded, settings)
    log(`start ${index + 1}: peak ${mb(figures.peak)}, idle ${mb(figures.idle)} (${breakdown(figures.byKind)}), ` +
      `answered after ${(figures.startMillis / 1000).toFixed(1)} s`)
    starts.push(figures)
  }
  const peak = median(starts.map((start) => start.peak))
  const idle = median(starts.map((start) => start.idle))
  const last = starts[starts.length - 1]
  return {
    database: "embedded",
    loads: [],
    comparisons: [],
    notes: [
      `${count} users and ${count} repositories; medians of ${STARTS} starts, idle after ${IDLE_SECONDS} s`,
      `peak while starting ${mb(peak)}; idle ${mb(idle)}`,
      ...(last === undefined ? [] : [`idle by kind (last start): ${breakdown(last.byKind)}`]),
      `per start (peak / idle MB): ${starts.map((start) => `${(start.peak / MB).toFixed(0)} / ${(start.idle / MB).toFixed(0)}`).join(", ")}`
    ],
    targets: [
      below("resident MB idle after start", idle / MB, 200, true),
      below("resident MB at the peak while starting", peak / MB, 400, true)
    ]
  }
}

export const scenario: Scenario = {
  name: "memory",
  description: "resident memory of the embedded server, peak while starting and idle, on --users users and as many repositories",
  run: async (settings, log) => {
    if (!settings.databases.includes("embedded")) return { scenario: "memory", databases: [] }
    try {
      return { scenario: "memory", databases: [await runEmbedded(settings, log)] }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      log(`[embedded] failed: ${message}`)
      return { scenario: "memory", databases: [{ database: "embedded", loads: [], comparisons: [], targets: [], notes: [], error: message }] }
    }
  }
}
