/**
 * Failed password sign-ins counted per key (an account, a client address) in a fixed window: once
 * a key has `limit` failures in its window, it is refused until the window ends. The window opens
 * with the key's first failure. Memory is bounded: past `maxKeys`, the keys whose window opened
 * longest ago are forgotten first.
 */
interface Window {
  readonly startedAt: number
  failures: number
}

export class FailedSignIns {
  readonly #windowMillis: number
  readonly #maxKeys: number
  readonly #byKey = new Map<string, Window>()

  constructor(windowMillis: number, maxKeys = 100_000) {
    this.#windowMillis = windowMillis
    this.#maxKeys = maxKeys
  }

  #current(key: string, now: number): Window | undefined {
    const window = this.#byKey.get(key)
    if (window === undefined || now - window.startedAt < this.#windowMillis) return window
    this.#byKey.delete(key)
    return undefined
  }

  /**
   * Milliseconds until `key` may try again, when it has `limit` failures in its window (a limit
   * of 0 never refuses); undefined when it may try now.
   */
  refusedFor(key: string, limit: number, now: number): number | undefined {
    if (limit <= 0) return undefined
    const window = this.#current(key, now)
    return window !== undefined && window.failures >= limit ? window.startedAt + this.#windowMillis - now : undefined
  }

  record(key: string, now: number): void {
    const window = this.#current(key, now)
    if (window !== undefined) {
      window.failures++
      return
    }
    this.#byKey.set(key, { startedAt: now, failures: 1 })
    // Insertion order is the order windows opened in.
    for (const oldest of this.#byKey.keys()) {
      if (this.#byKey.size <= this.#maxKeys) break
      this.#byKey.delete(oldest)
    }
  }

  /** A successful sign-in clears its account's failures. */
  clear(key: string): void {
    this.#byKey.delete(key)
  }
}
