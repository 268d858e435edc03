/**
 * Issue 7's figures: the renderer beside the bare unified pipeline and markdown-it (in-process),
 * POST /markdown over HTTP with 1 and then 4 clients (their ratio), and GET /version's latency
 * measured in a third load while 4 clients render. The /version load runs apart from the 4-client
 * one the ratio uses: it is a load of its own that takes CPU from the renders on a 2-core machine.
 * Every HTTP render gets a distinct text, so the cache never answers. Each markdown load notes
 * where the CPU went (server threads, Postgres backends, the load generator, the machine), which
 * says what bounds the 4-client rate.
 */
import * as Os from "node:os"
import * as Path from "node:path"
import { readme, runRenderBench } from "@kiln/markdown/bench/renderBench"
import * as BenchDatabase from "../BenchDatabase.ts"
import { type Admin, createToken, startKiln } from "../KilnServer.ts"
import { type LoadResult, type LoadSpec, runLoad } from "../LoadGenerator.ts"
import { atLeast, below, type BenchSettings, type DatabaseReport, type Scenario, validity, perDatabase } from "../Scenario.ts"
import { type CpuDuringLoad, withCpu } from "../LoadCpu.ts"
import * as ThreadCpu from "../ThreadCpu.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }

/** The render processes' command line (WorkerPool.ts): their CPU is the renders'. */
const renderProcess = "dist/RenderProcess.js"

const fixed = (value: number, digits = 1) => value.toFixed(digits)

/** A markdown load's CPU, with that of the server's render processes. */
interface MarkdownCpu extends CpuDuringLoad {
  readonly renderProcesses: number | undefined
}

/** CPU milliseconds per document: the server's threads, its render processes, Postgres, the load generator. */
const perDocument = (measured: MarkdownCpu): ReadonlyArray<readonly [string, number]> => {
  const documents = Math.max(1, measured.load.requests)
  const ms = (seconds: number) => (seconds * 1000) / documents
  const threads = measured.server === undefined ? [] : [...measured.server].map(([group, seconds]) => [group, ms(seconds)] as const)
  return [
    ...threads,
    ...(measured.renderProcesses === undefined ? [] : [["render processes", ms(measured.renderProcesses)] as const]),
    ...(measured.database === undefined ? [] : [["Postgres backends", ms(measured.database)] as const]),
    ["load generator", ms(measured.load.generatorCpuSeconds)] as const
  ]
}

const totalPerDocument = (measured: MarkdownCpu): number => perDocument(measured).reduce((sum, [, ms]) => sum + ms, 0)

const cpuNote = (measured: MarkdownCpu): string => {
  const { load, machine } = measured
  const parts = perDocument(measured).map(([what, ms]) => `${what} ${fixed(ms)}`).join(", ")
  const ours = (totalPerDocument(measured) * load.requestsPerSecond) / 1000
  const text = `${load.label}: ${fixed(load.requestsPerSecond)} docs/s; CPU ms per doc: ${parts} = ` +
    `${fixed(totalPerDocument(measured))}, ${fixed(ours, 2)} cores`
  if (machine === undefined) return text
  const busy = machine.busy / load.seconds
  return `${text}; the machine was busy ${fixed(busy, 2)} of ${Os.availableParallelism()} cores ` +
    `(${fixed(Math.max(0, busy - ours), 2)} by other work, ${fixed(machine.steal / load.seconds, 2)} stolen)`
}

const runOn = async (kind: BenchDatabase.DatabaseKind, settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  const notes: Array<string> = []
  try {
    const nodeFlags = settings.cpuProfileDir === undefined
      ? []
      // A directory per database. The render processes are not profiled: they run without the server's flags.
      : ["--cpu-prof", "--cpu-prof-dir", Path.join(settings.cpuProfileDir, `markdown-${kind}`)]
    const server = await startKiln({ database, admin, logFile: Path.join(database.dataDir, "kiln.log"), nodeFlags })
    try {
      const token = await createToken(server.url, admin, "bench")
      const headers = { authorization: `token ${token}`, "content-type": "application/json" }
      // The HTML comment is dropped by the sanitizer; it only makes each text distinct.
      const body = JSON.stringify({ Text: `${readme()}\n<!-- {{n}} -->\n`, Mode: "gfm", Context: "owner/repo" })
      const seconds = Math.min(settings.seconds, 30)
      const spec = (label: string, connections: number): LoadSpec => ({
        label,
        baseUrl: server.url,
        paths: ["/api/v1/markdown"],
        method: "POST",
        body,
        headers,
        connections,
        warmupSeconds: settings.warmupSeconds,
        windows: settings.windows,
        windowSeconds: seconds / settings.windows
      })
      const databaseName = BenchDatabase.serverDatabaseName(database)
      const markdownLoad = async (label: string, connections: number): Promise<MarkdownCpu> => {
        let before: ReadonlyMap<string, number> | undefined
        const measured = await withCpu(server.pid, databaseName, (onMeasuring) =>
          runLoad(spec(label, connections), () => {}, () => {
            before = ThreadCpu.sampleMatching(renderProcess)
            onMeasuring()
          }))
        const after = ThreadCpu.sampleMatching(renderProcess)
        return { ...measured, renderProcesses: before === undefined || after === undefined ? undefined : ThreadCpu.matchingDelta(before, after) }
      }

      // A render process's JIT keeps improving over its first thousand or so renders (some 40 s at one
      // client), longer than a load's own warm-up; the 1-client load uses a single process and the
      // 4-client ones all of them, so every process is warmed first, each alike.
      if (settings.warmupSeconds > 0) {
        log(`[${kind}] POST /markdown, every render process warming up`)
        await runLoad({ ...spec("warm-up", 2 * Os.availableParallelism()), warmupSeconds: 0, windows: 1, windowSeconds: 4 * settings.warmupSeconds })
      }
      log(`[${kind}] POST /markdown, 1 client`)
      const one = await markdownLoad("Kiln POST /markdown, 1 client", 1)
      log(`[${kind}] POST /markdown, 4 clients`)
      const four = await markdownLoad("Kiln POST /markdown, 4 clients", 4)
      log(`[${kind}] POST /markdown, 4 clients, with GET /version alongside`)
      const [fourWithVersion, version] = await Promise.all([
        markdownLoad("Kiln POST /markdown, 4 clients beside GET /version", 4),
        runLoad({
          label: "Kiln GET /version during markdown load",
          baseUrl: server.url,
          paths: ["/api/v1/version"],
          connections: 4,
          warmupSeconds: settings.warmupSeconds,
          windows: settings.windows,
          windowSeconds: seconds / settings.windows
        })
      ])
      const loads: ReadonlyArray<LoadResult> = [one.load, four.load, fourWithVersion.load, version]
      const ratio = four.load.requestsPerSecond / one.load.requestsPerSecond
      const cores = Os.availableParallelism()
      const ceiling = (cores * 1000) / totalPerDocument(four)
      notes.push(
        ...[one, four, fourWithVersion].map(cpuNote),
        `CPU bound: ${cores} cores ÷ ${fixed(totalPerDocument(four))} CPU ms per doc at 4 clients = ${fixed(ceiling)} docs/s at most, ` +
          `${fixed(ceiling / one.load.requestsPerSecond, 2)}× the 1-client rate (measured ${fixed(ratio, 2)}×)`
      )
      const renderer = await runRenderBench({ millis: 5_000 })
      notes.push(
        `renderer alone ${renderer.renderer} docs/s, bare unified ${renderer.bareUnified} docs/s, markdown-it ${renderer.markdownIt} docs/s`,
        `renderer time ÷ bare unified time ${renderer.rendererVsBareUnified}; cached renders ${renderer.cached}/s`
      )
      const enforced = true
      return {
        database: kind,
        loads,
        comparisons: [],
        targets: [
          below("renderer time ÷ bare unified time", renderer.rendererVsBareUnified, 1.1, enforced),
          atLeast("POST /markdown 4 clients ÷ 1 client", ratio, 1.6, enforced),
          below("GET /version p99 ms while rendering", version.p99Ms, 20, enforced),
          ...loads.flatMap(validity)
        ],
        notes
      }
    } finally {
      await server.stop()
    }
  } finally {
    await database.dispose()
  }
}

// Rendering does not touch the database: the first configured one is enough.
export const scenario: Scenario = perDatabase(
  "markdown",
  "markdown rendering: renderer vs bare unified and markdown-it, POST /markdown 1 vs 4 clients, /version p99 while rendering",
  runOn,
  1
)
