/**
 * At most `limit` tasks run at once; the others wait their turn, first come first served. At most
 * `maxWaiting` wait: past that a task is refused at once (QueueFull), so a flood of requests cannot
 * grow the queue, nor the work behind it, without bound. A waiting task whose signal aborts (its
 * requester went away) leaves the queue without ever running.
 *
 * Tasks run for a key (a client) hold at most `perKey` of the turns at once: a key's further tasks
 * wait while other keys' pass them. A task without a key has no such share.
 */
export class QueueFull extends Error {
  constructor() {
    super("too many tasks are waiting for a turn")
  }
}

interface Waiting {
  readonly key: string | undefined
  readonly start: () => void
}

export class ConcurrencyLimit {
  readonly #limit: number
  readonly #maxWaiting: number
  readonly #perKey: number
  #running = 0
  readonly #byKey = new Map<string, number>()
  readonly #waiting: Array<Waiting> = []

  constructor(limit: number, maxWaiting = Number.POSITIVE_INFINITY, perKey = Number.POSITIVE_INFINITY) {
    this.#limit = Math.max(1, limit)
    this.#maxWaiting = Math.max(0, maxWaiting)
    this.#perKey = Math.max(1, perKey)
  }

  /** Tasks waiting for a turn now. */
  get waiting(): number {
    return this.#waiting.length
  }

  async run<A>(task: () => Promise<A>, signal?: AbortSignal, key?: string): Promise<A> {
    signal?.throwIfAborted()
    // Every task waiting is held by its key's share, or no turn is free: none is overtaken.
    if (this.#mayStart(key)) this.#take(key)
    else await this.#turn(key, signal)
    try {
      return await task()
    } finally {
      this.#release(key)
      // The turn passes straight to the next waiter, so a newcomer cannot overtake it.
      this.#startWaiting()
    }
  }

  #mayStart(key: string | undefined): boolean {
    return this.#running < this.#limit && (key === undefined || (this.#byKey.get(key) ?? 0) < this.#perKey)
  }

  #take(key: string | undefined): void {
    this.#running++
    if (key !== undefined) this.#byKey.set(key, (this.#byKey.get(key) ?? 0) + 1)
  }

  #release(key: string | undefined): void {
    this.#running--
    if (key === undefined) return
    const held = (this.#byKey.get(key) ?? 1) - 1
    if (held === 0) this.#byKey.delete(key)
    else this.#byKey.set(key, held)
  }

  /** Hands free turns to the first waiters whose keys are within their share, in order. */
  #startWaiting(): void {
    for (let index = 0; index < this.#waiting.length && this.#running < this.#limit;) {
      const next = this.#waiting[index]
      if (next === undefined || !this.#mayStart(next.key)) {
        index++
        continue
      }
      this.#waiting.splice(index, 1)
      this.#take(next.key)
      next.start()
    }
  }

  #turn(key: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    if (this.#waiting.length >= this.#maxWaiting) return Promise.reject(new QueueFull())
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiting)
        if (index !== -1) this.#waiting.splice(index, 1)
        reject(signal?.reason)
      }
      const waiting: Waiting = {
        key,
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
