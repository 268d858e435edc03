/**
 * The CPU a load cost, read from /proc at both ends of its measured windows (the warm-up left out):
 * the server's threads, the Postgres backends of its database, the load generator and the machine.
 * Per request it is steadier than a rate on a shared 2-core machine: a rate moves with whatever
 * else is scheduled, the CPU one request needs much less.
 */
import type { LoadResult } from "./LoadGenerator.ts"
import * as ThreadCpu from "./ThreadCpu.ts"

/** A load with the CPU used over its measured windows; a part is absent where /proc cannot say. */
export interface CpuDuringLoad {
  readonly load: LoadResult
  readonly server: ThreadCpu.ProcessCpu | undefined
  /** Postgres backends serving the bench database. */
  readonly database: number | undefined
  readonly machine: ThreadCpu.MachineCpu | undefined
}

interface CpuReading {
  readonly server: ThreadCpu.ProcessCpu | undefined
  readonly database: ReadonlyMap<string, number> | undefined
  readonly machine: ThreadCpu.MachineCpu | undefined
}

const readCpu = (pid: number, databaseName: string | undefined): CpuReading => ({
  server: ThreadCpu.sampleProcess(pid),
  database: databaseName === undefined ? undefined : ThreadCpu.sampleMatching(databaseName),
  machine: ThreadCpu.sampleMachine()
})

/**
 * Runs `start` (a runLoad given its `onMeasuring`) and reads the CPU at both ends of its measured
 * windows. `databaseName` picks the Postgres backends (undefined: the database is in-process).
 */
export const withCpu = async (
  pid: number,
  databaseName: string | undefined,
  start: (onMeasuring: () => void) => Promise<LoadResult>
): Promise<CpuDuringLoad> => {
  let before: CpuReading | undefined
  const load = await start(() => {
    before = readCpu(pid, databaseName)
  })
  const after = readCpu(pid, databaseName)
  return {
    load,
    server: before?.server === undefined || after.server === undefined ? undefined : ThreadCpu.processDelta(before.server, after.server),
    database: before?.database === undefined || after.database === undefined
      ? undefined
      : ThreadCpu.matchingDelta(before.database, after.database),
    machine: before?.machine === undefined || after.machine === undefined ? undefined : ThreadCpu.machineDelta(before.machine, after.machine)
  }
}

/** The server's CPU seconds over every thread group. */
export const serverSeconds = (measured: CpuDuringLoad): number | undefined =>
  measured.server === undefined ? undefined : ThreadCpu.totalSeconds(measured.server)
