/**
 * Drives HTTP load from a child process (bench/loadWorker.ts running autocannon), so the load
 * generator never shares an event loop with the server it measures. A load runs as one sustained
 * stream split into consecutive windows: a client that slows down under sustained load (a queue
 * that grows while never empty) shows up as a last window slower than the first.
 */
import * as ChildProcess from "node:child_process"
import * as Os from "node:os"
import { type MachineProbe, startMachineProbe } from "./MachineProbe.ts"
import * as ThreadCpu from "./ThreadCpu.ts"

export interface LoadSpec {
  readonly label: string
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string
  /**
   * Several servers behind a round-robin client: the connections are split evenly between them
   * (`baseUrl` first). Absent: `baseUrl` alone.
   */
  readonly otherBaseUrls?: ReadonlyArray<string>
  /** Each request takes one of these at random. */
  readonly paths: ReadonlyArray<string>
  readonly headers?: Readonly<Record<string, string>>
  /** Headers of the requests to one path (e.g. the `If-None-Match` of that path's tag), over `headers`. */
  readonly pathHeaders?: Readonly<Record<string, Readonly<Record<string, string>>>>
  /** The status every answer must have (a conditional load's 304); any 2xx when absent. */
  readonly expectedStatus?: number
  /** GET when absent. */
  readonly method?: "GET" | "POST"
  /** A request body; every `{{n}}` becomes a token unique to the request, across loads too (so caches never answer). */
  readonly body?: string
  readonly connections: number
  /** Load before the measured windows (JIT, pools, caches), not reported: at least this long, longer until the server is steady. */
  readonly warmupSeconds: number
  /** The server whose CPU per request tells when the warm-up is over (set by `runLoad` from its `watched`). */
  readonly watchPid?: number
  readonly windows: number
  readonly windowSeconds: number
}

export interface WindowStats {
  readonly index: number
  readonly requests: number
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Responses whose status was not 2xx (not the expected status, when the load has one). */
  readonly non2xx: number
  /** Connection errors and timeouts. */
  readonly errors: number
}

export interface LoadResult {
  readonly label: string
  readonly connections: number
  readonly seconds: number
  readonly requests: number
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  readonly non2xx: number
  readonly errors: number
  readonly windows: ReadonlyArray<WindowStats>
  /** Last window's req/s over the first's: 1 is steady, below 1 slowed down. */
  readonly drift: number
  /** CPU seconds the load generator itself used over the measured windows: it shares the machine's cores. */
  readonly generatorCpuSeconds: number
  /** How long the warm-up ran: from `warmupSeconds` to six times it, until the server was steady. */
  readonly warmedSeconds: number
  /** 1-minute load average of the machine before and after: other work skews the figures. */
  readonly loadAverage: { readonly before: number; readonly after: number }
  /** Per window, the CPU one request cost the watched server and its database (when given and on Linux). */
  readonly windowCpu?: ReadonlyArray<WindowCpu>
  /**
   * Per window, the CPU µs the machine probe (MachineProbe.ts) took for its fixed task: how fast
   * the machine itself ran then. Absent when a window had no reading.
   */
  readonly windowProbe?: ReadonlyArray<number>
}

/**
 * The server a load is aimed at, whose CPU is read at each window's end: a window slower than the
 * others whose requests cost the same CPU waited for the machine, not for more work.
 */
export interface WatchedServer {
  readonly pid: number
  /** Picks the Postgres backends of its database; undefined when the database is in-process. */
  readonly databaseName: string | undefined
}

/** CPU µs per request over one window. */
export interface WindowCpu {
  /** The server's main thread (its event loop), and all its threads. */
  readonly serverMain: number
  readonly serverAll: number
  /** Postgres backends of the database; undefined when embedded. */
  readonly database: number | undefined
  /**
   * The whole machine's busy cores over the window, and the part of its busy CPU per request that
   * neither the server nor its database took (the load generator, the probe, anything else):
   * a window with fewer requests at the same CPU per request either left cores idle or gave them
   * to something else, and these say which.
   */
  readonly machineCores: number | undefined
  readonly elsewhere: number | undefined
}

interface CpuMark {
  readonly server: ThreadCpu.ProcessCpu | undefined
  readonly database: ReadonlyMap<string, number> | undefined
  readonly machine: ThreadCpu.MachineCpu | undefined
  readonly atMs: number
}

const markCpu = (watched: WatchedServer): CpuMark => ({
  server: ThreadCpu.sampleProcess(watched.pid),
  database: watched.databaseName === undefined ? undefined : ThreadCpu.sampleMatching(watched.databaseName),
  machine: ThreadCpu.sampleMachine(),
  atMs: performance.now()
})

const windowCpu = (before: CpuMark, after: CpuMark, requests: number): WindowCpu | undefined => {
  if (before.server === undefined || after.server === undefined) return undefined
  const server = ThreadCpu.processDelta(before.server, after.server)
  const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(1, requests)
  const serverSeconds = ThreadCpu.totalSeconds(server)
  const databaseSeconds = before.database === undefined || after.database === undefined
    ? undefined
    : ThreadCpu.matchingDelta(before.database, after.database)
  const machine = before.machine === undefined || after.machine === undefined ? undefined : ThreadCpu.machineDelta(before.machine, after.machine)
  return {
    serverMain: perRequest(server.get("main thread") ?? 0),
    serverAll: perRequest(serverSeconds),
    database: databaseSeconds === undefined ? undefined : perRequest(databaseSeconds),
    machineCores: machine === undefined ? undefined : machine.busy / Math.max(1e-9, (after.atMs - before.atMs) / 1000),
    elsewhere: machine === undefined ? undefined : perRequest(machine.busy - serverSeconds - (databaseSeconds ?? 0))
  }
}

/** Messages between the driver and the worker. */
export type WorkerRequest = { readonly type: "run"; readonly spec: LoadSpec }
export type WorkerReply =
  | { readonly type: "measuring" }
  | { readonly type: "window"; readonly stats: WindowStats }
  | { readonly type: "done"; readonly result: Omit<LoadResult, "loadAverage"> }
  | { readonly type: "failed"; readonly message: string }

const isWorkerReply = (message: unknown): message is WorkerReply =>
  typeof message === "object" && message !== null && "type" in message &&
  (message.type === "measuring" || message.type === "window" || message.type === "done" || message.type === "failed")

/** Nearest-rank percentile of ascending `sorted`, 0 when empty. */
export const percentile = (sorted: ArrayLike<number>, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0

/**
 * Runs one load; `onWindow` sees each window as it closes, `onMeasuring` the end of the warm-up (the
 * moment to start sampling anything measured alongside). With `watched`, the result has the CPU per
 * request of each window.
 */
export const runLoad = async (
  spec: LoadSpec,
  onWindow: (stats: WindowStats) => void = () => {},
  onMeasuring: () => void = () => {},
  watched?: WatchedServer
): Promise<LoadResult> => {
  const probe = await startMachineProbe()
  try {
    return await runLoadWith(spec, onWindow, onMeasuring, watched, probe)
  } finally {
    probe.stop()
  }
}

const runLoadWith = (
  spec: LoadSpec,
  onWindow: (stats: WindowStats) => void,
  onMeasuring: () => void,
  watched: WatchedServer | undefined,
  probe: MachineProbe
): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    const before = Os.loadavg()[0] ?? 0
    const worker = ChildProcess.fork(new URL("./loadWorker.ts", import.meta.url), [], {
      execPath: process.execPath,
      execArgv: [],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    let mark: CpuMark | undefined
    const cpu: Array<WindowCpu | undefined> = []
    const probed: Array<Promise<number | undefined>> = []
    let done = false
    let settled = false
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      outcome()
      if (worker.connected) worker.disconnect()
    }
    worker.on("message", (message) => {
      if (!isWorkerReply(message)) return
      if (message.type === "measuring") {
        if (watched !== undefined) mark = markCpu(watched)
        void probe.mark()
        onMeasuring()
      } else if (message.type === "window") {
        if (watched !== undefined && mark !== undefined) {
          const now = markCpu(watched)
          cpu.push(windowCpu(mark, now, message.stats.requests))
          mark = now
        }
        probed.push(probe.mark())
        onWindow(message.stats)
      } else if (message.type === "failed") settle(() => reject(new Error(`load ${spec.label}: ${message.message}`)))
      else {
        const loadAverage = { before, after: Os.loadavg()[0] ?? 0 }
        const measured = cpu.flatMap((window) => window === undefined ? [] : [window])
        const { result } = message
        // The worker may exit before the probe's last readings come: it is done, not gone early.
        done = true
        void Promise.all(probed).then((readings) => {
          const probes = readings.flatMap((reading) => reading === undefined ? [] : [reading])
          settle(() =>
            resolve({
              ...result,
              loadAverage,
              ...(measured.length === cpu.length && cpu.length > 0 ? { windowCpu: measured } : {}),
              ...(probes.length === readings.length && probes.length > 0 ? { windowProbe: probes } : {})
            })
          )
        })
      }
    })
    worker.once("exit", (code, signal) => {
      if (!done) settle(() => reject(new Error(`load worker for ${spec.label} exited early (code ${code}, signal ${signal})`)))
    })
    worker.send({ type: "run", spec: watched === undefined ? spec : { ...spec, watchPid: watched.pid } } satisfies WorkerRequest)
  })
