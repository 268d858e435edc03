/**
 * The CPU each party to a workload used, so that the distance to git's floor shows: Kiln's
 * processes (each server and its git launcher), the git processes they started (their reaped
 * children), PostgreSQL (every `postgres:` process: the backends and the writers), this load
 * generator, and the whole machine. In cores: CPU seconds per second of the window.
 */
import * as ThreadCpu from "./ThreadCpu.ts"

export interface WorkloadCpu {
  readonly kiln: number
  readonly git: number
  readonly postgres: number
  readonly generator: number
  readonly machine: number
}

interface Sample {
  readonly at: number
  readonly kiln: number
  readonly git: number
  readonly postgres: ReadonlyMap<string, number>
  readonly generator: number
  readonly machine: number
}

const sample = (serverPids: ReadonlyArray<number>): Sample => {
  const kilnProcesses = serverPids.flatMap((pid) => [pid, ...ThreadCpu.childProcesses(pid, "GitLauncherProcess")])
  const own = kilnProcesses.map(ThreadCpu.sampleOwnAndChildren)
  const generator = ThreadCpu.sampleOwnAndChildren("self")
  return {
    at: performance.now(),
    kiln: own.reduce((sum, cpu) => sum + (cpu?.own ?? 0), 0),
    git: own.reduce((sum, cpu) => sum + (cpu?.children ?? 0), 0),
    postgres: ThreadCpu.sampleMatching("postgres: ") ?? new Map(),
    generator: (generator?.own ?? 0) + (generator?.children ?? 0),
    machine: ThreadCpu.sampleMachine()?.busy ?? 0
  }
}

/** Starts measuring `serverPids`; the returned function ends it. */
export const measureWorkload = (serverPids: ReadonlyArray<number>): () => WorkloadCpu => {
  const before = sample(serverPids)
  return () => {
    const after = sample(serverPids)
    const seconds = (after.at - before.at) / 1000
    const cores = (used: number) => seconds > 0 ? used / seconds : 0
    return {
      kiln: cores(after.kiln - before.kiln),
      git: cores(after.git - before.git),
      postgres: cores(ThreadCpu.matchingDelta(before.postgres, after.postgres)),
      generator: cores(after.generator - before.generator),
      machine: cores(after.machine - before.machine)
    }
  }
}

export const describeWorkloadCpu = (cpu: WorkloadCpu): string =>
  `CPU cores: Kiln ${cpu.kiln.toFixed(2)}, git ${cpu.git.toFixed(2)}, PostgreSQL ${cpu.postgres.toFixed(2)}, ` +
  `load generator ${cpu.generator.toFixed(2)}; machine ${cpu.machine.toFixed(2)}`
