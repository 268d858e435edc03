/**
 * What `pnpm bench` runs: scenarios, each measuring some Kiln endpoints against baselines on each
 * selected database, and judging the figures against targets.
 */
import type { DatabaseKind } from "./BenchDatabase.ts"
import type { LoadResult } from "./LoadGenerator.ts"

export interface BenchSettings {
  /** Measured seconds per load (split into `windows`). */
  readonly seconds: number
  readonly windows: number
  readonly warmupSeconds: number
  readonly connections: number
  readonly databases: ReadonlyArray<DatabaseKind>
  /** The Postgres server's maintenance database, where fresh databases are created. */
  readonly postgresUrl: string
  readonly users: number
  /** Rounds of push and fetch that the git scenario's CPU per operation is averaged over. */
  readonly gitRounds: number
  /** Unmeasured rounds before them, reported apart: a just-started server's code is not yet optimized. */
  readonly gitWarmUpRounds: number
  /** Whether the git scenario also measures its small operations on a generated ~1 GB repository. */
  readonly gitLarge: boolean
  /** Where Kiln writes V8 CPU profiles, when profiling. */
  readonly cpuProfileDir?: string
}

/** One target: `measured` against `limit`, in the direction `kind` says. */
export interface TargetCheck {
  readonly description: string
  readonly measured: number
  readonly kind: "at least" | "below" | "within"
  readonly limit: number
  readonly pass: boolean
  /** False where the target is reported for information only (e.g. targets set for Postgres). */
  readonly enforced: boolean
}

/** `scenario`'s req/s and p99 over `baseline`'s. */
export interface Comparison {
  readonly scenario: string
  readonly baseline: string
  readonly throughputRatio: number
  readonly p99Ratio: number
}

export interface DatabaseReport {
  readonly database: DatabaseKind
  readonly loads: ReadonlyArray<LoadResult>
  readonly comparisons: ReadonlyArray<Comparison>
  readonly targets: ReadonlyArray<TargetCheck>
  /** Facts worth keeping with the figures (body sizes, seeding time, ...). */
  readonly notes: ReadonlyArray<string>
  /** Set when the run on this database could not finish. */
  readonly error?: string
}

export interface ScenarioReport {
  readonly scenario: string
  readonly databases: ReadonlyArray<DatabaseReport>
}

export interface Scenario {
  /** What `--only` selects. */
  readonly name: string
  readonly description: string
  readonly run: (settings: BenchSettings, log: (line: string) => void) => Promise<ScenarioReport>
}

export const atLeast = (description: string, measured: number, limit: number, enforced: boolean): TargetCheck => ({
  description,
  measured,
  kind: "at least",
  limit,
  pass: measured >= limit,
  enforced
})

export const below = (description: string, measured: number, limit: number, enforced: boolean): TargetCheck => ({
  description,
  measured,
  kind: "below",
  limit,
  pass: measured < limit,
  enforced
})

/** `measured` within `limit` (a fraction) of 1, e.g. a last/first window ratio within 10 %. */
export const within = (description: string, measured: number, limit: number, enforced: boolean): TargetCheck => ({
  description,
  measured,
  kind: "within",
  limit,
  pass: Math.abs(measured - 1) <= limit,
  enforced
})

export const compare = (scenario: LoadResult, baseline: LoadResult): Comparison => ({
  scenario: scenario.label,
  baseline: baseline.label,
  throughputRatio: baseline.requestsPerSecond === 0 ? 0 : scenario.requestsPerSecond / baseline.requestsPerSecond,
  p99Ratio: baseline.p99Ms === 0 ? 0 : scenario.p99Ms / baseline.p99Ms
})

/** Checks every load must pass for its figures to mean anything. */
export const validity = (load: LoadResult): ReadonlyArray<TargetCheck> => [
  within(`${load.label}: last window within 10% of the first`, load.drift, 0.1, true),
  below(`${load.label}: failed responses (non-2xx, errors)`, load.non2xx + load.errors, 1, true)
]

/**
 * A scenario that runs `runOn` for each database (`limit` of them at most); a database whose run
 * fails is reported with its error and the others still run.
 */
export const perDatabase = (
  name: string,
  description: string,
  runOn: (kind: DatabaseKind, settings: BenchSettings, log: (line: string) => void) => Promise<DatabaseReport>,
  limit = Number.POSITIVE_INFINITY
): Scenario => ({
  name,
  description,
  run: async (settings, log) => {
    const databases: Array<DatabaseReport> = []
    for (const kind of settings.databases.slice(0, limit)) {
      try {
        databases.push(await runOn(kind, settings, log))
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        log(`[${kind}] failed: ${message}`)
        databases.push({ database: kind, loads: [], comparisons: [], targets: [], notes: [], error: message })
      }
    }
    return { scenario: name, databases }
  }
})
