/**
 * The byte totals of a repository's object directories (the loose-object fan-out `objects/xx` and
 * `objects/pack`), remembered by path and modification time. Git never rewrites a file there in
 * place: objects and packs are written elsewhere and renamed in, and removed whole, and each of
 * those changes the directory's mtime. So while a directory's mtime is what it was, its total is
 * too, and a push's size measurement reads only the directories the push (or a gc) touched instead
 * of every loose object of the repository.
 *
 * A total is remembered only when the mtime read before the walk was already in the past by more
 * than the file system's clock granularity: a change made during or after the walk in the same
 * clock tick would otherwise leave the mtime as it was.
 */
const objectDirectory = /[\\/]objects[\\/](?:[0-9a-f]{2}|pack)$/

/**
 * A time with a sub-second part comes from a file system that keeps nanoseconds, stamped from the
 * kernel's coarse clock (a tick of 1-10 ms): ten ticks settle it. The same rule for every mtime (2 s)
 * re-read the directories of the last few pushes on every push to a busy repository, most of the
 * measurement's cost. A file system with whole-second (or FAT's 2 s) times gets its own margin.
 */
const FINE_SETTLED_AFTER_MS = 100
const COARSE_SETTLED_AFTER_MS = 3_000

/** How long after `mtimeMs` no change can still leave it as it is. */
const settledAfterMs = (mtimeMs: number): number => mtimeMs % 1_000 === 0 ? COARSE_SETTLED_AFTER_MS : FINE_SETTLED_AFTER_MS

export class SettledDirectorySizes {
  private readonly totals = new Map<string, { readonly mtimeMs: number; readonly bytes: number }>()
  private readonly maxEntries: number

  /** `maxEntries`: directories remembered, the least recently used forgotten first (~257 per repository). */
  constructor(maxEntries = 65_536) {
    this.maxEntries = maxEntries
  }

  /** Whether `path` is an object directory whose total can be remembered. */
  applies(path: string): boolean {
    return objectDirectory.test(path)
  }

  /** The total remembered for `path` at this mtime. */
  lookup(path: string, mtimeMs: number): number | undefined {
    const known = this.totals.get(path)
    if (known === undefined) return undefined
    if (known.mtimeMs !== mtimeMs) {
      this.totals.delete(path)
      return undefined
    }
    // Most recently used last.
    this.totals.delete(path)
    this.totals.set(path, known)
    return known.bytes
  }

  /** Remembers `bytes` measured after reading `mtimeMs` at `readAtMs`, if that mtime was settled then. */
  remember(path: string, mtimeMs: number, readAtMs: number, bytes: number): void {
    if (readAtMs - mtimeMs < settledAfterMs(mtimeMs)) return
    this.totals.delete(path)
    this.totals.set(path, { mtimeMs, bytes })
    while (this.totals.size > this.maxEntries) {
      const oldest = this.totals.keys().next()
      if (oldest.done === true) break
      this.totals.delete(oldest.value)
    }
  }

  /** Forgets everything under `prefix` (a repository removed or moved). */
  forgetUnder(prefix: string): void {
    for (const path of this.totals.keys()) {
      if (path.startsWith(prefix)) this.totals.delete(path)
    }
  }
}
