/**
 * Issue 7's figures: the renderer beside the bare unified pipeline and markdown-it (in-process),
 * and POST /markdown over HTTP with 1 and 4 clients, with GET /version's latency measured while
 * markdown renders at full load. Every HTTP render gets a distinct text, so the cache never answers.
 */
import * as Path from "node:path"
import { readme, runRenderBench } from "@kiln/markdown/bench/renderBench"
import * as BenchDatabase from "../BenchDatabase.ts"
import { type Admin, createToken, startKiln } from "../KilnServer.ts"
import { type LoadResult, type LoadSpec, runLoad } from "../LoadGenerator.ts"
import { atLeast, below, type BenchSettings, type DatabaseReport, type Scenario, validity, perDatabase } from "../Scenario.ts"

const admin: Admin = { username: "bench-admin", password: "bench-admin-password", email: "bench-admin@bench.invalid" }

const runOn = async (kind: BenchDatabase.DatabaseKind, settings: BenchSettings, log: (line: string) => void): Promise<DatabaseReport> => {
  const database = await BenchDatabase.create(kind, settings.postgresUrl)
  const notes: Array<string> = []
  try {
    const server = await startKiln({ database, admin, logFile: Path.join(database.dataDir, "kiln.log"), nodeFlags: [] })
    try {
      const token = await createToken(server.url, admin, "bench")
      const headers = { authorization: `token ${token}`, "content-type": "application/json" }
      // The HTML comment is dropped by the sanitizer; it only makes each text distinct.
      const body = JSON.stringify({ Text: `${readme()}\n<!-- {{n}} -->\n`, Mode: "gfm", Context: "owner/repo" })
      const spec = (label: string, connections: number, seconds: number): LoadSpec => ({
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
      const seconds = Math.min(settings.seconds, 30)
      log(`[${kind}] POST /markdown, 1 client`)
      const one = await runLoad(spec("Kiln POST /markdown, 1 client", 1, seconds))
      log(`[${kind}] POST /markdown, 4 clients, with GET /version alongside`)
      const [four, version] = await Promise.all([
        runLoad(spec("Kiln POST /markdown, 4 clients", 4, seconds)),
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
      const loads: ReadonlyArray<LoadResult> = [one, four, version]
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
          atLeast("POST /markdown 4 clients ÷ 1 client", four.requestsPerSecond / one.requestsPerSecond, 1.6, enforced),
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
