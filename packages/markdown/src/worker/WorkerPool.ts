/**
 * A fixed pool of render workers (one per core by default) so rendering never blocks the event
 * loop. Each worker is a small process (RenderProcess) hosting a render thread with a bounded heap: a
 * render that needs more than its heap limit (a few KB of nested quotes can need gigabytes) ends
 * that process, never the server, and is answered `TooComplex`, as is one whose HTML would be larger
 * than a render may answer (RenderJob.MAX_HTML_CHARS). Jobs queue when every worker is busy, up to
 * `maxQueued`; past that a render is answered `Busy` at once, so a flood of slow documents cannot
 * grow the queue (and the memory behind it) without bound. A render that overruns the time limit is
 * answered `TimedOut`. A worker that overran or ran out of memory is replaced. A render process ends
 * with the server, however the server ends.
 *
 * Workers start with the first render and stop once the pool has been idle for `idleMillis`: each
 * holds its own copy of the pipeline (~40 MB), which a server that renders now and then should not
 * keep. The next render starts them again (~0.3 s).
 */
import type { RenderRequest } from "@kiln/domain/markdown/RenderRequest"
import { type ChildProcess, spawn as spawnProcess } from "node:child_process"
import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import type { RenderJob, WorkerMessage } from "./RenderMessages.ts"

export type RenderOutcome =
  | { readonly _tag: "Rendered"; readonly html: string }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "TooComplex" }
  | { readonly _tag: "Busy" }

export interface WorkerPoolOptions {
  readonly size?: number | undefined
  readonly timeoutMillis: number
  /** Renders that may wait for a worker; more are answered `Busy`. Default 64. */
  readonly maxQueued?: number | undefined
  /** Deep nesting needs a deeper stack than a thread's default 4 MB. Default 64. */
  readonly stackSizeMb?: number | undefined
  /** A render thread's heap limit (default 256 MB): a render needing more is answered `TooComplex`. */
  readonly maxHeapMb?: number | undefined
  /** How long the workers outlive the last render (default one minute). */
  readonly idleMillis?: number | undefined
}

export interface WorkerPool {
  readonly size: number
  readonly render: (request: RenderRequest, mentionable: ReadonlyArray<string>, signal?: AbortSignal) => Promise<RenderOutcome>
  /** Workers replaced after overrunning the time limit or the heap limit, since the pool started. */
  readonly replacements: () => number
  /** Workers running now: none before the first render and after an idle period. */
  readonly running: () => number
  readonly close: () => Promise<void>
}

interface Pending {
  readonly job: RenderJob
  readonly resolve: (outcome: RenderOutcome) => void
  readonly reject: (error: Error) => void
}

interface Slot {
  process: ChildProcess
  ready: boolean
  current: Pending | undefined
  timer: NodeJS.Timeout | undefined
}

// Run from source the process is RenderProcess.ts; in the server's bundle (apps/server/build) it is
// RenderProcess.js beside the chunk holding this module.
const processPath = fileURLToPath(
  new URL(import.meta.url.endsWith(".ts") ? "./RenderProcess.ts" : "./RenderProcess.js", import.meta.url)
)

const closedError = () => new Error("the markdown worker pool is closed")

export const makeWorkerPool = (options: WorkerPoolOptions): WorkerPool => {
  const size = Math.max(1, options.size ?? availableParallelism())
  const maxQueued = Math.max(0, options.maxQueued ?? 64)
  const queue: Array<Pending> = []
  const slots: Array<Slot> = []
  let nextId = 0
  let replaced = 0
  let closed = false
  let idleTimer: NodeJS.Timeout | undefined

  const busy = () => queue.length > 0 || slots.some((slot) => slot.current !== undefined)

  const stop = (slot: Slot): void => {
    slot.process.removeAllListeners()
    slot.process.kill("SIGKILL")
  }

  /** Called whenever a job ends: once nothing is left, the workers get `idleMillis` more. */
  const stopWhenIdle = (): void => {
    clearTimeout(idleTimer)
    if (busy() || slots.length === 0) return
    idleTimer = setTimeout(() => {
      if (busy()) return
      for (const slot of slots.splice(0)) stop(slot)
    }, options.idleMillis ?? 60_000)
    // An idle pool never keeps the process alive.
    idleTimer.unref()
  }

  const dispatch = (): void => {
    for (const slot of slots) {
      if (!slot.ready || slot.current !== undefined) continue
      const pending = queue.shift()
      if (pending === undefined) return
      slot.current = pending
      slot.timer = setTimeout(() => overrun(slot), options.timeoutMillis)
      // A failed send is the process gone: its exit answers the job.
      slot.process.send(pending.job, () => {})
    }
  }

  const finish = (slot: Slot): Pending | undefined => {
    const pending = slot.current
    clearTimeout(slot.timer)
    slot.current = undefined
    slot.timer = undefined
    return pending
  }

  const replace = (slot: Slot): void => {
    stop(slot)
    if (closed) return
    replaced++
    attach(slot, spawn())
  }

  const overrun = (slot: Slot): void => {
    finish(slot)?.resolve({ _tag: "TimedOut" })
    replace(slot)
    stopWhenIdle()
  }

  /**
   * The process ended by itself. During a render that is the render's doing (its thread reached the
   * heap limit, or the system ended the process for its memory), and the worker is replaced. A
   * process that ended otherwise leaves the pool, which the next render fills again; if it could not
   * start at all, the renders waiting for it fail rather than wait for a worker that never comes.
   */
  const ended = (slot: Slot, error?: Error): void => {
    const pending = finish(slot)
    if (pending !== undefined && error === undefined) {
      pending.resolve({ _tag: "TooComplex" })
      replace(slot)
    } else {
      pending?.reject(error ?? new Error("a markdown render process ended"))
      stop(slot)
      const index = slots.indexOf(slot)
      if (index !== -1) slots.splice(index, 1)
      if (slots.length === 0) {
        const failure = error ?? new Error("the markdown render process could not start")
        for (const waiting of queue.splice(0)) waiting.reject(failure)
      }
    }
    dispatch()
    stopWhenIdle()
  }

  const spawn = (): ChildProcess =>
    // Through sh, for `ulimit -c 0`: V8 may abort a process whose render thread reached its heap
    // limit, and a core dump of it (~470 MB where dumps are on) for every such render is not wanted.
    spawnProcess("/bin/sh", [
      "-c",
      'ulimit -c 0 2>/dev/null; exec "$0" "$@"',
      process.execPath,
      // Not the server's own flags (a profiler, its heap size). Without the server's
      // `--heap-growing-percent=100` (ProcessFlags.ts) V8 collected often enough to cost 10–20% of
      // the render throughput.
      "--heap-growing-percent=100",
      processPath,
      String(options.maxHeapMb ?? 256),
      String(options.stackSizeMb ?? 64)
    ], {
      // Hygiene, not isolation: the process runs as the server's user and could read its files.
      env: {},
      // V8's report of a heap limit reached is not the operator's concern: the render is answered.
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      // The HTML comes back as one string: structured cloning copies it, JSON would escape it.
      serialization: "advanced"
    })

  const attach = (slot: Slot, child: ChildProcess): void => {
    slot.process = child
    slot.ready = false
    child.on("message", (message: WorkerMessage) => {
      if (message._tag === "Ready") slot.ready = true
      else if (slot.current?.job.id === message.id) {
        finish(slot)?.resolve(message._tag === "Rendered" ? { _tag: "Rendered", html: message.html } : { _tag: "TooComplex" })
      }
      dispatch()
      stopWhenIdle()
    })
    child.on("exit", () => ended(slot))
    child.on("error", (error) => ended(slot, error))
  }

  const start = (): void => {
    clearTimeout(idleTimer)
    while (slots.length < size) {
      const slot: Slot = { process: spawn(), ready: false, current: undefined, timer: undefined }
      attach(slot, slot.process)
      slots.push(slot)
    }
  }

  return {
    size,
    render: (request, mentionable, signal) =>
      new Promise<RenderOutcome>((resolve, reject) => {
        if (closed) return reject(closedError())
        start()
        // Waiting only when no worker is free to take the job now.
        const idleWorkers = slots.filter((slot) => slot.current === undefined).length
        if (queue.length >= maxQueued + idleWorkers) return resolve({ _tag: "Busy" })
        const pending: Pending = { job: { id: nextId++, request, mentionable }, resolve, reject }
        queue.push(pending)
        // A caller that goes away before its turn leaves the queue.
        signal?.addEventListener("abort", () => {
          const index = queue.indexOf(pending)
          if (index !== -1) queue.splice(index, 1)
          stopWhenIdle()
        }, { once: true })
        dispatch()
      }),
    replacements: () => replaced,
    running: () => slots.length,
    close: async () => {
      closed = true
      clearTimeout(idleTimer)
      for (const pending of queue.splice(0)) pending.reject(closedError())
      for (const slot of slots.splice(0)) {
        finish(slot)?.reject(closedError())
        stop(slot)
      }
    }
  }
}
