/**
 * A V8 CPU profile of one stretch of a server's life, taken through its inspector: `--cpu-prof`
 * profiles a process from start to exit, where a scenario wants its measured operations alone (the
 * git scenario's small pushes and fetches, which the clones before them and the load after bury).
 */
import * as Fs from "node:fs"

/** The server's flag: an inspector on a free loopback port, which Node names in its log. */
export const inspectFlag = "--inspect=127.0.0.1:0"

/**
 * The file name that marks a profile taken around measured operations: it is summarized whatever
 * share of it the server was busy (it waits on git for most of it).
 */
export const operationsSuffix = ".operations.cpuprofile"

/** Between samples: a small push costs the server a few milliseconds. */
const SAMPLING_INTERVAL_MICROSECONDS = 200

export interface InspectorProfiler {
  readonly start: () => Promise<void>
  /** Stops profiling and writes the profile to `file`. */
  readonly stop: (file: string) => Promise<void>
  readonly close: () => void
}

interface Reply {
  readonly id: number
  readonly result?: unknown
  readonly error?: { readonly message: string }
}

const isReply = (value: unknown): value is Reply =>
  typeof value === "object" && value !== null && "id" in value && typeof value.id === "number"

/** A session with one inspector; undefined when it does not answer (its process has ended). */
const open = async (address: string) => {
  const socket = new WebSocket(address)
  const opened = await new Promise<boolean>((resolve) => {
    socket.addEventListener("open", () => resolve(true), { once: true })
    socket.addEventListener("error", () => resolve(false), { once: true })
  })
  if (!opened) return undefined
  const pending = new Map<number, { readonly resolve: (result: unknown) => void; readonly reject: (error: Error) => void }>()
  socket.addEventListener("message", (event) => {
    const reply: unknown = JSON.parse(String(event.data))
    if (!isReply(reply)) return
    const waiting = pending.get(reply.id)
    pending.delete(reply.id)
    if (reply.error !== undefined) waiting?.reject(new Error(reply.error.message))
    else waiting?.resolve(reply.result)
  })
  let lastId = 0
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++lastId
      pending.set(id, { resolve, reject })
      socket.send(JSON.stringify({ id, method, params }))
    })
  return { call, close: () => socket.close() }
}

const pidOf = async (call: (method: string, params?: object) => Promise<unknown>): Promise<unknown> => {
  const evaluated = await call("Runtime.evaluate", { expression: "process.pid", returnByValue: true })
  return typeof evaluated === "object" && evaluated !== null && "result" in evaluated &&
      typeof evaluated.result === "object" && evaluated.result !== null && "value" in evaluated.result
    ? evaluated.result.value
    : undefined
}

/**
 * Connects to the inspector of process `pid`, whose output goes to `logFile`, started with
 * `inspectFlag`. Node processes it starts inherit the flag and name their own inspectors in the same
 * log (the git launcher), so each is asked for its process id.
 */
export const connect = async (logFile: string, pid: number): Promise<InspectorProfiler> => {
  const addresses = [...Fs.readFileSync(logFile, "utf8").matchAll(/Debugger listening on (ws:\/\/\S+)/g)].flatMap((match) => match[1] ?? [])
  for (const address of addresses) {
    const session = await open(address)
    if (session === undefined) continue
    if ((await pidOf(session.call)) !== pid) {
      session.close()
      continue
    }
    const { call, close } = session
    await call("Profiler.enable")
    await call("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_MICROSECONDS })
    return {
      start: () => call("Profiler.start").then(() => undefined),
      stop: async (file) => {
        const result = await call("Profiler.stop")
        if (typeof result !== "object" || result === null || !("profile" in result)) throw new Error("the inspector sent no profile")
        Fs.writeFileSync(file, JSON.stringify(result.profile))
      },
      close
    }
  }
  throw new Error(`no inspector of process ${pid} is named in ${logFile}`)
}
