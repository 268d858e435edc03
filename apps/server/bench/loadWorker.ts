/**
 * The load generator's process (forked by LoadGenerator.ts): receives a LoadSpec, runs a warm-up and
 * then one sustained autocannon run, and reports each window as it closes and the totals at the end.
 */
import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
import * as ThreadCpu from "./ThreadCpu.ts"
import { isSteady } from "./WarmUpSteadiness.ts"
import { type LoadSpec, percentile, type WindowStats, type WorkerReply, type WorkerRequest } from "./LoadGenerator.ts"

/** The part of autocannon's API used here; the package ships no types. */
interface AutocannonRequest {
  readonly method: string
  readonly path: string
  readonly body?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly setupRequest?: (request: AutocannonRequest) => AutocannonRequest
}
interface AutocannonInstance {
  stop(): void
  on(event: "response", listener: (client: unknown, statusCode: number, bytes: number, latencyMs: number) => void): void
  on(event: "reqError" | "timeout", listener: () => void): void
}
type Autocannon = (
  options: {
    readonly url: string
    readonly connections: number
    readonly duration: number
    readonly requests: ReadonlyArray<AutocannonRequest>
    readonly headers?: Readonly<Record<string, string>>
  },
  done: (error: Error | null) => void
) => AutocannonInstance

// autocannon is CommonJS without type declarations: the cast names the shape used above.
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

// Each load runs in a process of its own: the prefix keeps its bodies apart from earlier loads' ones,
// which a server's cache may still hold.
const loadId = randomUUID()
let requestNumber = 0

const send = (reply: WorkerReply): void => {
  process.send?.(reply)
}

/** The responses that completed within one window of the measured run. */
class LoadWindow {
  readonly index: number
  readonly latencies: Array<number> = []
  non2xx = 0
  errors = 0
  constructor(index: number) {
    this.index = index
  }

  stats(seconds: number): WindowStats {
    const sorted = Float64Array.from(this.latencies).sort()
    return {
      index: this.index,
      requests: this.latencies.length,
      requestsPerSecond: this.latencies.length / seconds,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      non2xx: this.non2xx,
      errors: this.errors
    }
  }
}

/** One autocannon run of `seconds` per server, which `stop` ends early. */
interface Drive {
  readonly done: Promise<void>
  readonly stop: () => void
}

/** One autocannon run of `seconds` per server; `record` gets each response with its time since the start. */
const drive = (
  spec: LoadSpec,
  seconds: number,
  record: (elapsedMs: number, status: number, latencyMs: number) => void,
  failed: (elapsedMs: number) => void,
  started = performance.now()
): Drive => {
  const urls = [spec.baseUrl, ...(spec.otherBaseUrls ?? [])]
  // Round robin over the servers: each gets its share of the connections.
  const runs = urls.map((url, index) =>
    driveOne(spec, url, Math.floor(spec.connections / urls.length) + (index < spec.connections % urls.length ? 1 : 0), seconds, record, failed, started)
  )
  return {
    done: Promise.all(runs.map((run) => run.done)).then(() => undefined),
    stop: () => runs.forEach((run) => run.stop())
  }
}

const driveOne = (
  spec: LoadSpec,
  url: string,
  connections: number,
  seconds: number,
  record: (elapsedMs: number, status: number, latencyMs: number) => void,
  failed: (elapsedMs: number) => void,
  started: number
): Drive => {
  const paths = spec.paths
  const body = spec.body
  const pathHeaders = spec.pathHeaders
  const pick = (request: AutocannonRequest): AutocannonRequest => {
    const path = paths[Math.floor(Math.random() * paths.length)] ?? "/"
    const extra = pathHeaders?.[path]
    return {
      ...request,
      path,
      ...(extra === undefined ? {} : { headers: { ...spec.headers, ...extra } }),
      ...(body === undefined ? {} : { body: body.replaceAll("{{n}}", `${loadId}-${requestNumber++}`) })
    }
  }
  let instance: AutocannonInstance | undefined
  const done = new Promise<void>((resolve, reject) => {
    instance = autocannon({
      url,
      connections,
      duration: seconds,
      requests: [{ method: spec.method ?? "GET", path: paths[0] ?? "/", setupRequest: pick }],
      ...(spec.headers === undefined ? {} : { headers: spec.headers })
    }, (error) => error === null ? resolve() : reject(error))
    instance.on("response", (_client, status, _bytes, latencyMs) => record(performance.now() - started, status, latencyMs))
    instance.on("reqError", () => failed(performance.now() - started))
    instance.on("timeout", () => failed(performance.now() - started))
  })
  return { done, stop: () => instance?.stop() }
}

/**
 * The warm-up is judged in slices of this length (WarmUpSteadiness.ts says when it is over), after at
 * least the warm-up asked for and at most `MAX_WARMUP_FACTOR` times it. A slice's figure is the
 * watched server's CPU per request when the load has one (its rate moves with the machine too),
 * else the rate.
 */
const SLICE_MS = 2_000
const MAX_WARMUP_FACTOR = 6

const processSeconds = (pid: number): number | undefined => {
  const cpu = ThreadCpu.sampleProcess(pid)
  return cpu === undefined ? undefined : ThreadCpu.totalSeconds(cpu)
}

/** Runs the warm-up until the server is steady; resolves with its length in seconds. */
const warmUp = async (spec: LoadSpec): Promise<number> => {
  if (spec.warmupSeconds <= 0) return 0
  const minimumMs = spec.warmupSeconds * 1000
  const figures: Array<number> = []
  const started = performance.now()
  let responses = 0
  let sliceStart = { responses: 0, cpu: spec.watchPid === undefined ? undefined : processSeconds(spec.watchPid) }
  let warming: Drive | undefined
  const check = setInterval(() => {
    const cpu = spec.watchPid === undefined ? undefined : processSeconds(spec.watchPid)
    const answered = responses - sliceStart.responses
    figures.push(cpu === undefined || sliceStart.cpu === undefined ? answered : (cpu - sliceStart.cpu) / Math.max(1, answered))
    sliceStart = { responses, cpu }
    if (performance.now() - started >= minimumMs && isSteady(figures)) warming?.stop()
  }, SLICE_MS)
  try {
    warming = drive(spec, spec.warmupSeconds * MAX_WARMUP_FACTOR, () => responses++, () => {}, started)
    await warming.done
  } finally {
    clearInterval(check)
  }
  return (performance.now() - started) / 1000
}

const run = async (spec: LoadSpec): Promise<void> => {
  const warmedSeconds = await warmUp(spec)

  const windowMs = spec.windowSeconds * 1000
  const measuredMs = spec.windows * windowMs
  const windows = Array.from({ length: spec.windows }, (_, index) => new LoadWindow(index))
  /**
   * None past the measured time: autocannon's duration only raises a flag, which its next one-second
   * tick acts on, so requests went on for up to a second more. Filed into the last window, they
   * made it up to 20 % faster than the first (5 s windows) with the CPU per request unchanged: the
   * "drift" upwards that repository search showed in run after run.
   */
  const windowAt = (elapsedMs: number): LoadWindow | undefined =>
    elapsedMs < measuredMs ? windows[Math.floor(elapsedMs / windowMs)] : undefined
  const closed: Array<WindowStats> = []
  let cpu: NodeJS.CpuUsage | undefined
  const close = () => {
    const window = windows[closed.length]
    if (window === undefined) return
    const stats = window.stats(spec.windowSeconds)
    closed.push(stats)
    if (closed.length === spec.windows) cpu = process.cpuUsage(cpuBefore)
    send({ type: "window", stats })
  }
  send({ type: "measuring" })
  const cpuBefore = process.cpuUsage()
  // A response is filed by the time it completed, so a window is whole once its end has passed;
  // the last one too, before the load has wound down, so that the CPU read at its close is its own.
  const started = performance.now()
  const timers = windows.map((window) => setTimeout(close, (window.index + 1) * windowMs + 50))

  const all: Array<number> = []
  let non2xx = 0
  let errors = 0
  try {
    await drive(spec, spec.windows * spec.windowSeconds, (elapsedMs, status, latencyMs) => {
      const window = windowAt(elapsedMs)
      if (window === undefined) return
      window.latencies.push(latencyMs)
      all.push(latencyMs)
      if (spec.expectedStatus === undefined ? status < 200 || status > 299 : status !== spec.expectedStatus) {
        window.non2xx++
        non2xx++
      }
    }, (elapsedMs) => {
      const window = windowAt(elapsedMs)
      if (window === undefined) return
      window.errors++
      errors++
    }, started).done
  } finally {
    for (const timer of timers) clearTimeout(timer)
  }
  while (closed.length < spec.windows) close()

  const sorted = Float64Array.from(all).sort()
  const seconds = spec.windows * spec.windowSeconds
  const first = closed[0]?.requestsPerSecond ?? 0
  const last = closed[closed.length - 1]?.requestsPerSecond ?? 0
  send({
    type: "done",
    result: {
      label: spec.label,
      connections: spec.connections,
      seconds,
      requests: all.length,
      requestsPerSecond: all.length / seconds,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted[sorted.length - 1] ?? 0,
      non2xx,
      errors,
      windows: closed,
      drift: first === 0 ? 0 : last / first,
      generatorCpuSeconds: cpu === undefined ? 0 : (cpu.user + cpu.system) / 1e6,
      warmedSeconds
    }
  })
}

process.once("message", (message: WorkerRequest) => {
  run(message.spec).then(
    () => process.disconnect(),
    (error: unknown) => {
      send({ type: "failed", message: error instanceof Error ? error.message : String(error) })
      process.disconnect()
    }
  )
})
