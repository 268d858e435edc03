/**
 * At most `limit` tasks run at once; the others wait their turn, first come first served. At most
 * `maxWaiting` wait: past that a task is refused at once (QueueFull), so a flood of requests cannot
 * grow the queue, nor the work behind it, without bound. A waiting task whose signal aborts (its
 * requester went away) leaves the queue without ever running.
 */
export class QueueFull extends Error {
  constructor() {
    super("too many tasks are waiting for a turn")
  }
}

interface Waiting {
  readonly start: () => void
}

export class ConcurrencyLimit {
  readonly #limit: number
  readonly #maxWaiting: number
  #running = 0
  readonly #waiting: Array<Waiting> = []

  constructor(limit: number, maxWaiting = Number.POSITIVE_INFINITY) {
    this.#limit = Math.max(1, limit)
    this.#maxWaiting = Math.max(0, maxWaiting)
  }

  /** Tasks waiting for a turn now. */
  get waiting(): number {
    return this.#waiting.length
  }

  async run<A>(task: () => Promise<A>, signal?: AbortSignal): Promise<A> {
    signal?.throwIfAborted()
    if (this.#running >= this.#limit) await this.#turn(signal)
    else this.#running++
    try {
      return await task()
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake it.
      const next = this.#waiting.shift()
      if (next === undefined) this.#running--
      else next.start()
    }
  }

  #turn(signal: AbortSignal | undefined): Promise<void> {
    if (this.#waiting.length >= this.#maxWaiting) return Promise.reject(new QueueFull())
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiting)
        if (index !== -1) this.#waiting.splice(index, 1)
        reject(signal?.reason)
      }
      const waiting: Waiting = {
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
