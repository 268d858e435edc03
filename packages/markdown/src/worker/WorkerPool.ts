/**
 * A fixed pool of render workers (one per core by default) so rendering never blocks the event
 * loop. Jobs queue when every worker is busy, up to `maxQueued`; past that a render is answered
 * `Busy` at once, so a flood of slow documents cannot grow the queue (and the memory behind it)
 * without bound. A render that overruns the time limit is answered `TimedOut`; its worker is
 * terminated and replaced.
 *
 * Workers start with the first render and stop once the pool has been idle for `idleMillis`: each
 * holds its own copy of the pipeline (~30 MB), which a server that renders now and then should not
 * keep. The next render starts them again (~0.2 s).
 */
import type { RenderRequest } from "@kiln/domain/markdown/RenderRequest"
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import type { RenderJob, WorkerMessage } from "./RenderMessages.ts"

export type RenderOutcome =
  | { readonly _tag: "Rendered"; readonly html: string }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Busy" }

export interface WorkerPoolOptions {
  readonly size?: number | undefined
  readonly timeoutMillis: number
  /** Renders that may wait for a worker; more are answered `Busy`. Default 64. */
  readonly maxQueued?: number | undefined
  /** Deep nesting needs a deeper stack than a worker's default 4 MB. */
  readonly stackSizeMb?: number | undefined
  /** How long the workers outlive the last render (default one minute). */
  readonly idleMillis?: number | undefined
}

export interface WorkerPool {
  readonly size: number
  readonly render: (request: RenderRequest, mentionable: ReadonlyArray<string>, signal?: AbortSignal) => Promise<RenderOutcome>
  /** Workers replaced after overrunning the time limit, since the pool started. */
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
  worker: Worker
  ready: boolean
  current: Pending | undefined
  timer: NodeJS.Timeout | undefined
}

// Run from source the worker is RenderWorker.ts; in the server's bundle (apps/server/build) it is
// RenderWorker.js beside the chunk holding this module.
const workerUrl = new URL(import.meta.url.endsWith(".ts") ? "./RenderWorker.ts" : "./RenderWorker.js", import.meta.url)

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

  const stop = (slot: Slot): Promise<number> => {
    slot.worker.removeAllListeners()
    return slot.worker.terminate()
  }

  /** Called whenever a job ends: once nothing is left, the workers get `idleMillis` more. */
  const stopWhenIdle = (): void => {
    clearTimeout(idleTimer)
    if (busy() || slots.length === 0) return
    idleTimer = setTimeout(() => {
      if (busy()) return
      for (const slot of slots.splice(0)) void stop(slot)
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
      slot.worker.postMessage(pending.job)
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
    void stop(slot)
    if (closed) return
    replaced++
    attach(slot, spawn())
  }

  const overrun = (slot: Slot): void => {
    finish(slot)?.resolve({ _tag: "TimedOut" })
    replace(slot)
    stopWhenIdle()
  }

  const spawn = (): Worker =>
    new Worker(workerUrl, { resourceLimits: { stackSizeMb: options.stackSizeMb ?? 64 } })

  const attach = (slot: Slot, worker: Worker): void => {
    slot.worker = worker
    slot.ready = false
    worker.on("message", (message: WorkerMessage) => {
      if (message._tag === "Ready") slot.ready = true
      else if (slot.current?.job.id === message.id) finish(slot)?.resolve({ _tag: "Rendered", html: message.html })
      dispatch()
      stopWhenIdle()
    })
    worker.on("error", (error) => {
      finish(slot)?.reject(error)
      replace(slot)
      dispatch()
      stopWhenIdle()
    })
  }

  const start = (): void => {
    clearTimeout(idleTimer)
    if (slots.length > 0) return
    for (let i = 0; i < size; i++) {
      const slot: Slot = { worker: spawn(), ready: false, current: undefined, timer: undefined }
      attach(slot, slot.worker)
      slots.push(slot)
    }
  }

  return {
    size,
    render: (request, mentionable, signal) =>
      new Promise<RenderOutcome>((resolve, reject) => {
        if (closed) return reject(new Error("the markdown worker pool is closed"))
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
      for (const pending of queue.splice(0)) pending.reject(new Error("the markdown worker pool is closed"))
      await Promise.all(slots.map(async (slot) => {
        finish(slot)?.reject(new Error("the markdown worker pool is closed"))
        await stop(slot)
      }))
    }
  }
}
