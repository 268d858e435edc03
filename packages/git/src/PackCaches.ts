/**
 * isomorphic-git keeps parsed pack indexes and the pack bytes in the `cache` object callers pass
 * in: a read from a pack loads the whole pack into memory. One cache per repository, kept across
 * calls, turns a cold read into a warm one. The set is bounded by bytes (least recently used goes
 * first): each repository counts as the size of its packs, what its cache may come to hold. A
 * repository whose packs alone are past the budget gets no cache at all: its objects are read
 * through the git executable instead, which never holds a whole pack.
 */
import { sep } from "node:path"

/** isomorphic-git reads a pack with one readFile, which cannot go past 2 GiB; stay well below. */
const MOST_PACK_BYTES = 1024 ** 3

interface Entry {
  readonly cache: object
  bytes: number
}

export class PackCaches {
  readonly #maxBytes: number
  readonly #byPath = new Map<string, Entry>()
  #total = 0

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes
  }

  /**
   * The cache for the repository at `path`, whose packs weigh `packBytes` now; undefined when that
   * is more than the budget allows one repository (read it without a cache).
   */
  for(path: string, packBytes: number): object | undefined {
    const entry = this.#byPath.get(path)
    // A budget of 0 keeps no cache at all, not even for a repository of loose objects only.
    if (this.#maxBytes === 0 || packBytes > Math.min(this.#maxBytes, MOST_PACK_BYTES)) {
      if (entry !== undefined) this.drop(path)
      return undefined
    }
    const current = entry ?? { cache: {}, bytes: 0 }
    // Re-inserting moves the entry to the end: Map iteration order is the recency order.
    this.#byPath.delete(path)
    this.#byPath.set(path, current)
    this.#total += packBytes - current.bytes
    current.bytes = packBytes
    for (const [oldest, { bytes }] of this.#byPath) {
      if (this.#total <= this.#maxBytes || oldest === path) break
      this.#byPath.delete(oldest)
      this.#total -= bytes
    }
    return current.cache
  }

  drop(path: string): void {
    const entry = this.#byPath.get(path)
    if (entry === undefined) return
    this.#byPath.delete(path)
    this.#total -= entry.bytes
  }

  /** Forgets every repository inside `directory` (an owner directory being renamed). */
  dropUnder(directory: string): void {
    for (const path of [...this.#byPath.keys()]) {
      if (path.startsWith(directory + sep)) this.drop(path)
    }
  }

  has(path: string): boolean {
    return this.#byPath.has(path)
  }

  /** Pack bytes the warm caches may hold, all together. */
  get totalBytes(): number {
    return this.#total
  }
}
