/**
 * isomorphic-git keeps parsed pack indexes (and the pack bytes) in the `cache` object callers pass
 * in. One cache per repository, kept across calls, turns a cold blob read into a warm one. The set
 * is bounded (least recently used goes first) because a warm cache holds whole packs in memory.
 */
import { sep } from "node:path"

export class PackCaches {
  readonly #capacity: number
  readonly #byPath = new Map<string, object>()

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  /** The cache for the repository at `path`, created on first use. */
  for(path: string): object {
    const cache = this.#byPath.get(path) ?? {}
    // Re-inserting moves the entry to the end: Map iteration order is the recency order.
    this.#byPath.delete(path)
    this.#byPath.set(path, cache)
    for (const oldest of this.#byPath.keys()) {
      if (this.#byPath.size <= this.#capacity) break
      this.#byPath.delete(oldest)
    }
    return cache
  }

  drop(path: string): void {
    this.#byPath.delete(path)
  }

  /** Forgets every repository inside `directory` (an owner directory being renamed). */
  dropUnder(directory: string): void {
    for (const path of [...this.#byPath.keys()]) {
      if (path.startsWith(directory + sep)) this.#byPath.delete(path)
    }
  }

  has(path: string): boolean {
    return this.#byPath.has(path)
  }
}
