/**
 * The byte budget of the archive cache. An archive takes its space before its bytes reach the
 * disk: the writer reserves in steps as git's output arrives, and a step the budget cannot cover,
 * even after removing the archives used longest ago, stops the archive. So finished archives plus
 * archives being written never exceed the bound, at any moment.
 *
 * Archives used in the last minute are never removed: a response may have found one and not yet
 * opened it.
 */
import { rm } from "node:fs/promises"
import { IN_USE_MS, listCache } from "./ArchiveCache.ts"

/** Why an archive could not be given room. */
export type NoRoom = "larger-than-cache" | "held-by-recent-archives"

export class ArchiveCacheSpace {
  readonly #cacheDir: string
  readonly #maxBytes: number | undefined
  /** Bytes granted to archives being written. */
  #reserved = 0
  /**
   * Bytes of finished archives, as last counted plus those finished since. Only this process adds
   * archives, so it never undercounts; removals make it overcount until the next count.
   */
  #stored: number | undefined
  /** Reservations run one at a time: each may list and prune the cache. */
  #queue: Promise<unknown> = Promise.resolve()

  constructor(cacheDir: string, maxBytes: number | undefined) {
    this.#cacheDir = cacheDir
    this.#maxBytes = maxBytes
  }

  get maxBytes(): number | undefined {
    return this.#maxBytes
  }

  /**
   * Grants `bytes` more to an archive being written, removing the archives used longest ago when
   * the budget is short (down to 80% of it, so that not every archive pays for a pass). The answer
   * is the reason when there is no room.
   */
  reserve(bytes: number, alreadyGranted: number): Promise<NoRoom | undefined> {
    const granted = this.#queue.then(() => this.#grant(bytes, alreadyGranted))
    this.#queue = granted.catch(() => undefined)
    return granted
  }

  /** Gives back a reservation: the archive failed. */
  release(bytes: number): void {
    this.#reserved = Math.max(0, this.#reserved - bytes)
  }

  /** An archive is finished at `size` bytes: it turns from reserved into stored, the rest given back. */
  finish(granted: number, size: number): void {
    this.release(granted)
    if (this.#stored !== undefined) this.#stored += size
  }

  /** Archives were removed outside the budget's knowledge (a repository's discarded): count afresh. */
  recount(): void {
    this.#stored = undefined
  }

  async #grant(bytes: number, alreadyGranted: number): Promise<NoRoom | undefined> {
    const max = this.#maxBytes
    if (max === undefined) {
      this.#reserved += bytes
      return undefined
    }
    if (alreadyGranted + bytes > max) return "larger-than-cache"
    if (this.#stored !== undefined && this.#stored + this.#reserved + bytes <= max) {
      this.#reserved += bytes
      return undefined
    }
    // Short, or never counted: the disk is the truth.
    const files = [...await listCache(this.#cacheDir)].sort((a, b) => a.usedAt - b.usedAt)
    let stored = files.reduce((sum, file) => sum + file.size, 0)
    const fits = () => stored + this.#reserved + bytes <= max
    if (!fits()) {
      const inUseSince = Date.now() - IN_USE_MS
      for (const file of files) {
        if (stored + this.#reserved + bytes <= max * 0.8 || file.usedAt > inUseSince) break
        await rm(file.path, { force: true })
        stored -= file.size
      }
    }
    this.#stored = stored
    if (!fits()) return "held-by-recent-archives"
    this.#reserved += bytes
    return undefined
  }
}
