/**
 * One worker thread that matches `.editorconfig` files, a job at a time (queued jobs wait their
 * turn, at most `maxQueued` of them: past that a job is answered `Busy` at once, and one whose
 * caller went away leaves the queue). A job that overruns `timeoutMillis` is answered `TimedOut`
 * and its thread is terminated; the next job starts a fresh one. The limit runs from when the job
 * is sent to a thread that has loaded the library, so a thread's start (slow on a busy machine) is
 * never counted against a job. The thread starts with the first job and is unref'd: it never keeps
 * the process alive.
 */
import { Worker } from "node:worker_threads"
import type { MatchJob, MatchReply } from "./MatchMessages.ts"

export type MatchOutcome =
  | { readonly _tag: "Matched"; readonly properties: Readonly<Record<string, unknown>> }
  | { readonly _tag: "Failed"; readonly message: string }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Busy" }

export interface MatchingThread {
  readonly match: (config: Uint8Array, fileName: string, signal?: AbortSignal) => Promise<MatchOutcome>
  /** Threads terminated for overrunning the time limit, since the start. */
  readonly terminations: () => number
  readonly close: () => Promise<void>
}

interface Pending {
  readonly job: MatchJob
  readonly resolve: (outcome: MatchOutcome) => void
}

// From source the worker is EditorConfigWorker.ts; in the server's bundle (apps/server/build) it is
// EditorConfigWorker.js beside the chunk holding this module.
const workerUrl = new URL(import.meta.url.endsWith(".ts") ? "./EditorConfigWorker.ts" : "./EditorConfigWorker.js", import.meta.url)

export const makeMatchingThread = (timeoutMillis: number, maxQueued: number): MatchingThread => {
  const queue: Array<Pending> = []
  let worker: Worker | undefined
  /** The thread has loaded the library. */
  let ready = false
  let current: Pending | undefined
  /** `current` has been sent to the thread (its time limit runs). */
  let sent = false
  let timer: NodeJS.Timeout | undefined
  let nextId = 0
  let terminated = 0
  let closed = false

  const stop = (): void => {
    const stopping = worker
    worker = undefined
    ready = false
    if (stopping === undefined) return
    stopping.removeAllListeners()
    void stopping.terminate()
  }

  const settle = (outcome: MatchOutcome): void => {
    const pending = current
    clearTimeout(timer)
    current = undefined
    sent = false
    timer = undefined
    pending?.resolve(outcome)
  }

  const spawn = (): Worker => {
    const started = new Worker(workerUrl)
    started.unref()
    started.on("message", (reply: MatchReply) => {
      if (reply._tag === "Ready") {
        ready = true
        return send()
      }
      if (current?.job.id !== reply.id) return
      settle(reply._tag === "Matched" ? { _tag: "Matched", properties: reply.properties } : { _tag: "Failed", message: reply.message })
      next()
    })
    started.on("error", (error) => {
      stop()
      settle({ _tag: "Failed", message: error.message })
      next()
    })
    return started
  }

  const next = (): void => {
    if (current !== undefined || closed) return
    const pending = queue.shift()
    if (pending === undefined) return
    current = pending
    worker ??= spawn()
    send()
  }

  /** Sends the current job once the thread is ready, and starts its time limit. */
  const send = (): void => {
    if (current === undefined || sent || !ready || worker === undefined) return
    sent = true
    timer = setTimeout(() => {
      terminated++
      stop()
      settle({ _tag: "TimedOut" })
      next()
    }, timeoutMillis)
    worker.postMessage(current.job)
  }

  return {
    match: (config, fileName, signal) =>
      new Promise<MatchOutcome>((resolve, reject) => {
        if (closed) return reject(new Error("the editorconfig matching thread is closed"))
        if (queue.length >= maxQueued) return resolve({ _tag: "Busy" })
        const pending: Pending = { job: { id: nextId++, config, fileName }, resolve }
        queue.push(pending)
        // A caller that goes away before its turn leaves the queue.
        signal?.addEventListener("abort", () => {
          const index = queue.indexOf(pending)
          if (index !== -1) queue.splice(index, 1)
        }, { once: true })
        next()
      }),
    terminations: () => terminated,
    close: async () => {
      closed = true
      const stopping = worker
      worker = undefined
      stopping?.removeAllListeners()
      settle({ _tag: "Failed", message: "the editorconfig matching thread is closed" })
      for (const pending of queue.splice(0)) pending.resolve({ _tag: "Failed", message: "the editorconfig matching thread is closed" })
      await stopping?.terminate()
    }
  }
}
