/**
 * How many git processes serve clients at once (review 4b30e64, finding 17): each transport (smart
 * HTTP now, SSH later) runs its `upload-pack` and `receive-pack` inside a slot of one shared pool.
 * A request past the limit waits its turn, first come first served; at most `maxWaiting` wait, and
 * past that a request is refused at once (GitSlotsBusy: answer 503 with Retry-After). A waiting
 * request whose client went away (its signal aborts) leaves the queue without running.
 */
import { availableParallelism } from "node:os"
import { ConcurrencyLimit, QueueFull } from "./ConcurrencyLimit.ts"

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

export class GitProcessSlots {
  readonly maxProcesses: number
  readonly maxWaiting: number
  readonly #limit: ConcurrencyLimit
  #running = 0

  constructor(maxProcesses: number = defaultMaxGitProcesses(), maxWaiting: number = maxProcesses * WAITING_PER_SLOT) {
    this.maxProcesses = Math.max(1, maxProcesses)
    this.maxWaiting = Math.max(0, maxWaiting)
    this.#limit = new ConcurrencyLimit(this.maxProcesses, this.maxWaiting)
  }

  /** Git processes running in a slot now. */
  get running(): number {
    return this.#running
  }

  /** Requests waiting for a slot now. */
  get waiting(): number {
    return this.#limit.waiting
  }

  /**
   * Runs `task` (which starts and waits for one git process) holding a slot. Rejects with
   * GitSlotsBusy when the queue is full, or with the signal's reason when it aborts while waiting.
   */
  async run<A>(task: () => Promise<A>, signal?: AbortSignal): Promise<A> {
    try {
      return await this.#limit.run(async () => {
        this.#running++
        try {
          return await task()
        } finally {
          this.#running--
        }
      }, signal)
    } catch (error) {
      throw error instanceof QueueFull ? new GitSlotsBusy() : error
    }
  }
}
