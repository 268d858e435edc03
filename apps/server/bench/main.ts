/**
 * `pnpm bench [-- --only users --seconds 60 --db embedded|postgres|both ...]`: runs the selected
 * scenarios, prints a table per scenario and database, and writes bench/results/<timestamp>.json.
 * Exits 1 when an enforced target failed or a run could not finish.
 */
import * as Fs from "node:fs"
import { parseArgs } from "node:util"
import { bundleServer } from "../build/ServerBundle.ts"
import type { DatabaseKind } from "./BenchDatabase.ts"
import * as CpuProfile from "./CpuProfile.ts"
import * as InspectorProfiler from "./InspectorProfiler.ts"
import * as Report from "./Report.ts"
import type { BenchSettings, Scenario, ScenarioReport } from "./Scenario.ts"
import * as ArchiveScenario from "./scenarios/ArchiveScenario.ts"
import * as ConditionalScenario from "./scenarios/ConditionalScenario.ts"
import * as BackupScenario from "./scenarios/BackupScenario.ts"
import * as GitScenario from "./scenarios/GitScenario.ts"
import * as LfsScenario from "./scenarios/LfsScenario.ts"
import * as MemoryScenario from "./scenarios/MemoryScenario.ts"
import * as MarkdownScenario from "./scenarios/MarkdownScenario.ts"
import * as PasswordScenario from "./scenarios/PasswordScenario.ts"
import * as QuotaScenario from "./scenarios/QuotaScenario.ts"
import * as ReposScenario from "./scenarios/ReposScenario.ts"
import * as ScaleScenario from "./scenarios/ScaleScenario.ts"
import * as SshScenario from "./scenarios/SshScenario.ts"
import * as UsersScenario from "./scenarios/UsersScenario.ts"
import * as WebhooksScenario from "./scenarios/WebhooksScenario.ts"

const scenarios: ReadonlyArray<Scenario> = [
  UsersScenario.scenario,
  ReposScenario.scenario,
  QuotaScenario.scenario,
  ArchiveScenario.scenario,
  GitScenario.scenario,
  MarkdownScenario.scenario,
  ScaleScenario.scenario,
  ConditionalScenario.scenario,
  BackupScenario.scenario,
  WebhooksScenario.scenario,
  PasswordScenario.scenario,
  MemoryScenario.scenario,
  SshScenario.scenario,
  LfsScenario.scenario
]

const usage = `pnpm bench -- [options]
  --only <names>        comma-separated scenarios (default: all): ${scenarios.map((s) => s.name).join(", ")}
  --db <which>          embedded | postgres | both (default both)
  --seconds <n>         measured seconds per load (default 60)
  --windows <n>         consecutive windows per load (default 6)
  --warmup <n>          unmeasured seconds before each load (default 10), longer (up to 6×) until
                        the server's CPU per request holds steady
  --connections <n>     concurrent connections (default 64)
  --users <n>           users to seed (default 10000)
  --git-rounds <n>      push and fetch rounds of the git scenario's CPU per operation (default 20;
                        a run's figures vary by ±20% at 20)
  --git-warm-up <n>     rounds before those, reported apart (default 40): a just-started server's
                        first pushes cost up to twice a running one's
  --git-large           the git scenario also runs its small operations on a generated repository
                        of 10,000 files, ~1 GB (~2.5 minutes to generate, ~4 more per database)
  --postgres-url <url>  maintenance database of the Postgres server
                        (default postgres://postgres@127.0.0.1:5432/postgres)
  --cpu-prof            write V8 CPU profiles of the Kiln server to bench/results/profiles-<time>/
                        and print where its time went (idle threads left out); the git scenario's
                        covers its small pushes and fetches alone
  --list                list the scenarios`

const { values } = parseArgs({
  // pnpm passes a literal "--" through when given `pnpm bench -- ...`.
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: {
    only: { type: "string" },
    db: { type: "string", default: "both" },
    seconds: { type: "string", default: "60" },
    windows: { type: "string", default: "6" },
    warmup: { type: "string", default: "10" },
    connections: { type: "string", default: "64" },
    users: { type: "string", default: "10000" },
    "git-rounds": { type: "string", default: "20" },
    "git-warm-up": { type: "string", default: "40" },
    "git-large": { type: "boolean", default: false },
    "postgres-url": { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    "cpu-prof": { type: "boolean", default: false },
    list: { type: "boolean", default: false },
    help: { type: "boolean", default: false }
  }
})

const fail = (message: string): never => {
  console.error(`${message}\n\n${usage}`)
  process.exit(2)
}

const positive = (name: string, text: string): number => {
  const value = Number(text)
  return Number.isFinite(value) && value > 0 ? value : fail(`--${name} must be a positive number, got ${text}`)
}

if (values.help) {
  console.log(usage)
  process.exit(0)
}
if (values.list) {
  for (const scenario of scenarios) console.log(`${scenario.name.padEnd(12)} ${scenario.description}`)
  process.exit(0)
}

const databases: ReadonlyArray<DatabaseKind> = values.db === "both"
  ? ["embedded", "postgres"]
  : values.db === "embedded" || values.db === "postgres"
  ? [values.db]
  : fail(`--db must be embedded, postgres or both, got ${values.db}`)

const wanted = values.only?.split(",").map((name) => name.trim()).filter((name) => name !== "")
const selected = wanted === undefined ? scenarios : wanted.map((name) =>
  scenarios.find((scenario) => scenario.name === name) ?? fail(`unknown scenario ${name}`))

const startedAt = new Date()
const stamp = startedAt.toISOString().replace(/[:.]/g, "-")
const cpuProfileDir = values["cpu-prof"] ? new URL(`./results/profiles-${stamp}/`, import.meta.url).pathname : undefined
if (cpuProfileDir !== undefined) Fs.mkdirSync(cpuProfileDir, { recursive: true })

const settings: BenchSettings = {
  seconds: positive("seconds", values.seconds),
  windows: Math.round(positive("windows", values.windows)),
  warmupSeconds: Number(values.warmup) >= 0 ? Number(values.warmup) : fail("--warmup must be 0 or more"),
  connections: Math.round(positive("connections", values.connections)),
  databases,
  postgresUrl: values["postgres-url"],
  users: Math.round(positive("users", values.users)),
  gitRounds: Math.round(positive("git-rounds", values["git-rounds"])),
  gitWarmUpRounds: Number(values["git-warm-up"]) >= 0 ? Math.round(Number(values["git-warm-up"])) : fail("--git-warm-up must be 0 or more"),
  gitLarge: values["git-large"],
  ...(cpuProfileDir === undefined ? {} : { cpuProfileDir })
}

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`)

// Every scenario measures the server as shipped, built from the sources as they are now.
await bundleServer()

const reports: Array<ScenarioReport> = []
for (const scenario of selected) {
  log(`scenario ${scenario.name}: ${scenario.description}`)
  const report = await scenario.run(settings, log)
  reports.push(report)
  console.log(Report.render(report))
}
console.log(`\nresults: ${Report.save(settings, reports, startedAt)}`)
if (cpuProfileDir !== undefined) {
  const profiles = Fs.readdirSync(cpuProfileDir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".cpuprofile"))
    .sort()
  for (const file of profiles) {
    const summary = CpuProfile.summarize(`${cpuProfileDir}${file}`, 25, file.endsWith(InspectorProfiler.operationsSuffix) ? 0 : 0.2)
    if (summary !== undefined) console.log(`\n${summary}`)
  }
}

const failed = reports.flatMap((report) => report.databases).filter((database) =>
  database.error !== undefined || database.targets.some((check) => check.enforced && !check.pass))
process.exitCode = failed.length === 0 ? 0 : 1
