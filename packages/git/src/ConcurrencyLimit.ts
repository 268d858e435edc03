/** At most `limit` tasks run at once; the others wait their turn, first come first served. */
export class ConcurrencyLimit {
  readonly #limit: number
  #running = 0
  readonly #waiting: Array<() => void> = []

  constructor(limit: number) {
    this.#limit = Math.max(1, limit)
  }

  async run<A>(task: () => Promise<A>): Promise<A> {
    if (this.#running >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve))
    else this.#running++
    try {
      return await task()
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake it.
      const next = this.#waiting.shift()
      if (next === undefined) this.#running--
      else next()
    }
  }
}
