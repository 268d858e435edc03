/** Prints scenario reports as tables and keeps them as JSON under bench/results/. */
import * as Fs from "node:fs"
import * as Os from "node:os"
import type { WindowCpu } from "./LoadGenerator.ts"
import type { BenchSettings, ScenarioReport, TargetCheck } from "./Scenario.ts"

const number = (value: number, digits: number): string =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const row = (cells: ReadonlyArray<string>, widths: ReadonlyArray<number>): string =>
  cells.map((cell, index) => index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0)).join("  ")

const verdict = (check: TargetCheck): string =>
  `${check.pass ? "PASS" : "FAIL"}${check.enforced ? "" : " (info)"}`

const limitText = (check: TargetCheck): string =>
  check.kind === "within" ? `within ${number(check.limit * 100, 0)}% of 1` : `${check.kind} ${number(check.limit, 2)}`

export const render = (report: ScenarioReport): string => {
  const lines: Array<string> = []
  for (const database of report.databases) {
    lines.push("", `== ${report.scenario} on ${database.database} ==`)
    for (const note of database.notes) lines.push(`  ${note}`)
    if (database.error !== undefined) {
      lines.push(`  FAILED: ${database.error}`)
      continue
    }
    const widths = [42, 9, 8, 8, 6, 9]
    lines.push(row(["load", "req/s", "p50 ms", "p99 ms", "drift", "load avg"], widths))
    for (const load of database.loads) {
      lines.push(row([
        load.label,
        number(load.requestsPerSecond, 0),
        number(load.p50Ms, 2),
        number(load.p99Ms, 2),
        number(load.drift, 2),
        `${number(load.loadAverage.before, 1)}→${number(load.loadAverage.after, 1)}`
      ], widths))
      lines.push(`    windows req/s: ${load.windows.map((window) => number(window.requestsPerSecond, 0)).join(" ")}` +
        ` (after ${number(load.warmedSeconds, 0)} s of warm-up)`)
      if (load.windowCpu !== undefined) {
        const series = (pick: (window: WindowCpu) => number | undefined) =>
          load.windowCpu?.map((window) => { const value = pick(window); return value === undefined ? "-" : number(value, 0) }).join(" ")
        lines.push(`    windows CPU µs per request: server ${series((window) => window.serverAll)}` +
          ` (main thread ${series((window) => window.serverMain)})` +
          (load.windowCpu.some((window) => window.database !== undefined) ? `, Postgres ${series((window) => window.database)}` : ""))
        if (load.windowCpu.some((window) => window.machineCores !== undefined)) {
          const cores = load.windowCpu.map((window) => window.machineCores === undefined ? "-" : number(window.machineCores, 2)).join(" ")
          lines.push(`    windows machine: busy cores ${cores}; CPU µs per request elsewhere (load generator, probe, other) ${series((window) => window.elsewhere)}`)
        }
      }
      const probes = load.windowProbe
      const [firstProbe, lastProbe] = [probes?.[0], probes?.[probes.length - 1]]
      if (probes !== undefined && firstProbe !== undefined && lastProbe !== undefined) {
        // The machine ran the probe's task faster by as much as the load's drift says: a drift of the machine.
        lines.push(`    windows machine probe CPU µs per task: ${probes.map((microseconds) => number(microseconds, 0)).join(" ")}` +
          ` (last ÷ first ${number(lastProbe / firstProbe, 2)}; drift at the machine's speed ${number(load.drift * lastProbe / firstProbe, 2)})`)
      }
    }
    lines.push("", row(["ratio", "req/s", "p99"], [70, 6, 6]))
    for (const comparison of database.comparisons) {
      lines.push(row([
        `${comparison.scenario} ÷ ${comparison.baseline}`,
        number(comparison.throughputRatio, 2),
        number(comparison.p99Ratio, 2)
      ], [70, 6, 6]))
    }
    lines.push("", "targets")
    for (const check of database.targets) {
      lines.push(`  ${verdict(check).padEnd(11)} ${check.description}: ${number(check.measured, 2)} (${limitText(check)})`)
    }
  }
  return lines.join("\n")
}

/** Writes everything to `bench/results/<timestamp>.json` and returns the file's path. */
export const save = (settings: BenchSettings, reports: ReadonlyArray<ScenarioReport>, startedAt: Date): string => {
  const directory = new URL("./results/", import.meta.url)
  Fs.mkdirSync(directory, { recursive: true })
  const file = new URL(`./${startedAt.toISOString().replace(/[:.]/g, "-")}.json`, directory)
  const machine = {
    node: process.version,
    cpus: Os.cpus().length,
    cpuModel: Os.cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(Os.totalmem() / 2 ** 30),
    loadAverageAtEnd: Os.loadavg()
  }
  Fs.writeFileSync(file, `${JSON.stringify({ startedAt, settings, machine, reports }, null, 2)}\n`)
  return file.pathname
}
