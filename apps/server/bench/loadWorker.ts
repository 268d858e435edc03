/**
 * The load generator's process (forked by LoadGenerator.ts): receives a LoadSpec, runs a warm-up and
 * then one sustained autocannon run, and reports each window as it closes and the totals at the end.
 */
import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
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

/** One autocannon run of `seconds` per server; `record` gets each response with its time since the start. */
const drive = (
  spec: LoadSpec,
  seconds: number,
  record: (elapsedMs: number, status: number, latencyMs: number) => void,
  failed: (elapsedMs: number) => void,
  started = performance.now()
): Promise<void> => {
  const urls = [spec.baseUrl, ...(spec.otherBaseUrls ?? [])]
  // Round robin over the servers: each gets its share of the connections.
  return Promise.all(urls.map((url, index) =>
    driveOne(spec, url, Math.floor(spec.connections / urls.length) + (index < spec.connections % urls.length ? 1 : 0), seconds, record, failed, started)
  )).then(() => undefined)
}

const driveOne = (
  spec: LoadSpec,
  url: string,
  connections: number,
  seconds: number,
  record: (elapsedMs: number, status: number, latencyMs: number) => void,
  failed: (elapsedMs: number) => void,
  started: number
): Promise<void> =>
  new Promise((resolve, reject) => {
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
    const instance = autocannon({
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

const run = async (spec: LoadSpec): Promise<void> => {
  if (spec.warmupSeconds > 0) await drive(spec, spec.warmupSeconds, () => {}, () => {})

  const windowMs = spec.windowSeconds * 1000
  const windows = Array.from({ length: spec.windows }, (_, index) => new LoadWindow(index))
  const windowAt = (elapsedMs: number): LoadWindow =>
    windows[Math.min(spec.windows - 1, Math.floor(elapsedMs / windowMs))] ?? new LoadWindow(-1)
  const closed: Array<WindowStats> = []
  const close = () => {
    const window = windows[closed.length]
    if (window === undefined) return
    const stats = window.stats(spec.windowSeconds)
    closed.push(stats)
    send({ type: "window", stats })
  }
  send({ type: "measuring" })
  const cpuBefore = process.cpuUsage()
  // A response is filed by the time it completed, so a window is whole once its end has passed.
  const started = performance.now()
  const timers = windows.slice(1).map((window) => setTimeout(close, window.index * windowMs + 50))

  const all: Array<number> = []
  let non2xx = 0
  let errors = 0
  try {
    await drive(spec, spec.windows * spec.windowSeconds, (elapsedMs, status, latencyMs) => {
      const window = windowAt(elapsedMs)
      window.latencies.push(latencyMs)
      all.push(latencyMs)
      if (spec.expectedStatus === undefined ? status < 200 || status > 299 : status !== spec.expectedStatus) {
        window.non2xx++
        non2xx++
      }
    }, (elapsedMs) => {
      windowAt(elapsedMs).errors++
      errors++
    }, started)
  } finally {
    for (const timer of timers) clearTimeout(timer)
  }
  const cpu = process.cpuUsage(cpuBefore)
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
      generatorCpuSeconds: (cpu.user + cpu.system) / 1e6
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
