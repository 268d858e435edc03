/**
 * One-at-a-time sections per repository within this process: a push and what follows it (syncing
 * the branch table) complete before the next push to the same repository starts, while pushes to
 * other repositories go on in parallel.
 */
export class RepositoryLocks {
  readonly #tails = new Map<string, Promise<void>>()

  /** Runs `task` once every earlier task holding `key` has settled. */
  async withLock<A>(key: string, task: () => Promise<A>): Promise<A> {
    const previous = this.#tails.get(key) ?? Promise.resolve()
    const { promise: done, resolve: release } = Promise.withResolvers<void>()
    const tail = previous.then(() => done)
    this.#tails.set(key, tail)
    await previous
    try {
      return await task()
    } finally {
      release()
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    }
  }

  /** Keys currently held or waited for (the map never grows beyond the repositories in use). */
  get size(): number {
    return this.#tails.size
  }
}
