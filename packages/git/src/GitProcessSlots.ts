/**
 * How many git processes serve clients at once (review 4b30e64, finding 17): each transport (smart
 * HTTP, SSH) runs its `upload-pack` and `receive-pack` inside a slot of one shared pool. A request
 * past the limit waits its turn, first come first served; at most `maxWaiting` wait, and past that a
 * request is refused at once (GitSlotsBusy: answer 503 with Retry-After). A waiting request whose
 * client went away (its signal aborts) leaves the queue without running.
 *
 * A client (the transport names it: smart HTTP an anonymous caller's address) holds at most
 * `perClient` slots at once; its further requests wait while others' pass them. A few clients that
 * keep their gits busy (a slow download, a request sent slowly) then leave slots to everyone else.
 * A request named for no client (a signed-in caller, answerable for its own load: a CI account's
 * parallel jobs) has no share.
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

/** A client's share of the slots: a quarter (2 of the default 8), at least one. */
const defaultPerClient = (maxProcesses: number): number => Math.max(1, Math.ceil(maxProcesses / 4))

export class GitProcessSlots {
  readonly maxProcesses: number
  readonly maxWaiting: number
  readonly perClient: number
  readonly #limit: ConcurrencyLimit
  #running = 0

  constructor(
    maxProcesses: number = defaultMaxGitProcesses(),
    maxWaiting: number = maxProcesses * WAITING_PER_SLOT,
    perClient: number = defaultPerClient(maxProcesses)
  ) {
    this.maxProcesses = Math.max(1, maxProcesses)
    this.maxWaiting = Math.max(0, maxWaiting)
    this.perClient = Math.max(1, perClient)
    this.#limit = new ConcurrencyLimit(this.maxProcesses, this.maxWaiting, this.perClient)
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
   * Runs `task` (which starts and waits for one git process) holding a slot, counted against
   * `client` (none: no share applies). Rejects with GitSlotsBusy when the queue is full, or with the
   * signal's reason when it aborts while waiting.
   */
  async run<A>(task: () => Promise<A>, signal?: AbortSignal, client?: string): Promise<A> {
    try {
      return await this.#limit.run(async () => {
        this.#running++
        try {
          return await task()
        } finally {
          this.#running--
        }
      }, signal, client)
    } catch (error) {
      throw error instanceof QueueFull ? new GitSlotsBusy() : error
    }
  }
}
