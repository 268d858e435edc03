/**
 * isomorphic-git keeps parsed pack indexes and the pack bytes in the `cache` object callers pass
 * in: a read from a pack loads the whole pack into memory. One cache per repository, kept across
 * calls, turns a cold read into a warm one. The set is bounded by bytes: each repository counts as
 * the size of its packs, what its cache may come to hold, from the moment a read takes its cache
 * (before anything is loaded) until it is evicted. A cache some read is using is never evicted, so
 * the bound covers the packs being loaded as well as those kept: when the room is held by reads in
 * progress, a read gets no cache and its objects are read through the git executable instead,
 * which never holds a whole pack (as for a repository whose packs alone are past the budget).
 */
import { sep } from "node:path"

/** isomorphic-git reads a pack with one readFile, which cannot go past 2 GiB; stay well below. */
const MOST_PACK_BYTES = 1024 ** 3

interface Entry {
  readonly cache: object
  bytes: number
  /** Reads using the cache now: it cannot be evicted (its bytes may be loading). */
  users: number
  /** Forgotten (repository deleted or renamed) while in use: its bytes count until the last read ends. */
  dropped: boolean
}

/** A repository's cache lent to one read; `release` when the read is over. */
export interface PackLease {
  readonly cache: object
  /**
   * Pack bytes the cache had not been counted for before this read: all of them for a cache it
   * makes, what the repository grew by since the last read (a push that brought a pack).
   */
  readonly unseenBytes: number
  readonly release: () => void
}

export class PackCaches {
  readonly #maxBytes: number
  readonly #byPath = new Map<string, Entry>()
  #total = 0

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes
  }

  /**
   * The cache for a read of the repository at `path`, whose packs weigh `packBytes` now, held
   * until released; undefined when that is more than the budget allows one repository, or when
   * the room is held by caches other reads are using (read it without a cache).
   */
  acquire(path: string, packBytes: number): PackLease | undefined {
    const found = this.#byPath.get(path)
    // A budget of 0 keeps no cache at all, not even for a repository of loose objects only.
    if (this.#maxBytes === 0 || packBytes > Math.min(this.#maxBytes, MOST_PACK_BYTES)) {
      if (found !== undefined && found.users === 0) this.drop(path)
      return undefined
    }
    const growth = packBytes - (found?.bytes ?? 0)
    const unseenBytes = found === undefined ? packBytes : Math.max(0, growth)
    // Least recently used first (Map iteration order is the recency order), never one in use.
    for (const [oldest, entry] of this.#byPath) {
      if (this.#total + growth <= this.#maxBytes) break
      if (oldest !== path && entry.users === 0) this.drop(oldest)
    }
    if (this.#total + growth > this.#maxBytes) return undefined
    const entry = found ?? { cache: {}, bytes: 0, users: 0, dropped: false }
    // Re-inserting moves the entry to the end: the most recently used.
    this.#byPath.delete(path)
    this.#byPath.set(path, entry)
    this.#total += growth
    entry.bytes = packBytes
    entry.users++
    let released = false
    return {
      cache: entry.cache,
      unseenBytes,
      release: () => {
        if (released) return
        released = true
        entry.users--
        if (entry.dropped && entry.users === 0) this.#total -= entry.bytes
      }
    }
  }

  drop(path: string): void {
    const entry = this.#byPath.get(path)
    if (entry === undefined) return
    this.#byPath.delete(path)
    if (entry.users > 0) entry.dropped = true
    else this.#total -= entry.bytes
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

  /** Pack bytes the caches may hold, all together: those kept and those reads are using. */
  get totalBytes(): number {
    return this.#total
  }
}
