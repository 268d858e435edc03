/**
 * How many git processes serve clients at once (review 4b30e64, finding 17): each transport (smart
 * HTTP, SSH) runs its `upload-pack` and `receive-pack` inside a slot of one shared pool. A request
 * past the limit waits its turn, first come first served; at most `maxWaiting` wait, and past that a
 * request is refused at once (GitSlotsBusy: answer 503 with Retry-After). A waiting request whose
 * client went away (its signal aborts) leaves the queue without running.
 *
 * One client (an account, or an address for anonymous requests) holds at most `perClient` slots at
 * once; its further requests wait while others' pass them. A few clients that keep their gits busy
 * (a slow download, a request sent slowly) then leave slots to everyone else.
 */
import { availableParallelism } from "node:os"

/** Every slot is taken and `maxWaiting` requests already wait. */
export class GitSlotsBusy extends Error {
  /** Seconds a refused client is told to wait before trying again. */
  readonly retryAfterSeconds = 5
  constructor() {
    super("every git process slot is taken and too many requests wait for one")
  }
}

/** Four per core, at least 8: a git serving a clone mostly waits on its client's network. */
export const defaultMaxGitProcesses = (cores: number = availableParallelism()): number => Math.max(8, cores * 4)

/** Requests that may wait for a slot, per slot: with the default on 2 cores (8 slots), 64 wait, so 40 concurrent pushes (each an info/refs, then a receive-pack) are never refused. */
const WAITING_PER_SLOT = 8

/** A client's share of the slots: a quarter (2 of the default 8), at least one. */
const defaultPerClient = (maxProcesses: number): number => Math.max(1, Math.ceil(maxProcesses / 4))

interface Waiting {
  readonly client: string | undefined
  readonly start: () => void
}

export class GitProcessSlots {
  readonly maxProcesses: number
  readonly maxWaiting: number
  readonly perClient: number
  #running = 0
  readonly #byClient = new Map<string, number>()
  readonly #waiting: Array<Waiting> = []

  constructor(
    maxProcesses: number = defaultMaxGitProcesses(),
    maxWaiting: number = maxProcesses * WAITING_PER_SLOT,
    perClient: number = defaultPerClient(maxProcesses)
  ) {
    this.maxProcesses = Math.max(1, maxProcesses)
    this.maxWaiting = Math.max(0, maxWaiting)
    this.perClient = Math.max(1, perClient)
  }

  /** Git processes running in a slot now. */
  get running(): number {
    return this.#running
  }

  /** Requests waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length
  }

  /**
   * Runs `task` (which starts and waits for one git process) holding a slot, counted against
   * `client` (none: no share applies). Rejects with GitSlotsBusy when the queue is full, or with the
   * signal's reason when it aborts while waiting.
   */
  async run<A>(task: () => Promise<A>, signal?: AbortSignal, client?: string): Promise<A> {
    signal?.throwIfAborted()
    // Every waiter ahead is held by its client's share, or no slot is free: none is overtaken.
    if (this.#mayStart(client)) this.#take(client)
    else await this.#turn(client, signal)
    try {
      return await task()
    } finally {
      this.#release(client)
      this.#startWaiting()
    }
  }

  #mayStart(client: string | undefined): boolean {
    return this.#running < this.maxProcesses && (client === undefined || (this.#byClient.get(client) ?? 0) < this.perClient)
  }

  #take(client: string | undefined): void {
    this.#running++
    if (client !== undefined) this.#byClient.set(client, (this.#byClient.get(client) ?? 0) + 1)
  }

  #release(client: string | undefined): void {
    this.#running--
    if (client === undefined) return
    const held = (this.#byClient.get(client) ?? 1) - 1
    if (held === 0) this.#byClient.delete(client)
    else this.#byClient.set(client, held)
  }

  /** Hands free slots to the first waiters whose clients are within their share, in order. */
  #startWaiting(): void {
    for (let index = 0; index < this.#waiting.length && this.#running < this.maxProcesses;) {
      const next = this.#waiting[index]
      if (next === undefined || !this.#mayStart(next.client)) {
        index++
        continue
      }
      this.#waiting.splice(index, 1)
      this.#take(next.client)
      next.start()
    }
  }

  #turn(client: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    if (this.#waiting.length >= this.maxWaiting) return Promise.reject(new GitSlotsBusy())
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiting)
        if (index !== -1) this.#waiting.splice(index, 1)
        reject(signal?.reason)
      }
      const waiting: Waiting = {
        client,
        start: () => {
          signal?.removeEventListener("abort", onAbort)
          resolve()
        }
      }
      this.#waiting.push(waiting)
      signal?.addEventListener("abort", onAbort, { once: true })
    })
  }
}
