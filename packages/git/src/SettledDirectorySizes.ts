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
 *
 * A loose-object directory that did change is read again, but the size of each file it held is
 * remembered by name: a loose object is named by its content's hash, git writes it once (it checks
 * for the object, in packs too, before writing, and only freshens its time when found), and gc
 * removes it whole. So only the names new since the last read are stat'ed: a push's measurement
 * stats the few objects it wrote, not every object in the directories it wrote to.
 */
const objectDirectory = /[\\/]objects[\\/](?:[0-9a-f]{2}|pack)$/
const looseObjectDirectory = /[\\/]objects[\\/][0-9a-f]{2}$/

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

/** File sizes by name in one loose-object directory. */
export type FileSizes = ReadonlyMap<string, number>

export class SettledDirectorySizes {
  /** `used`: when last looked up or remembered, in `uses`' count (read on every push's ~257 lookups, reordered on none). */
  private readonly totals = new Map<string, { readonly mtimeMs: number; readonly bytes: number; used: number }>()
  private uses = 0
  private readonly maxEntries: number
  private readonly files = new Map<string, FileSizes>()
  private filesHeld = 0
  private readonly maxFiles: number

  /**
   * `maxEntries`: directories whose totals are remembered (~257 per repository); `maxFiles`: file
   * sizes remembered by name, over all loose-object directories (~100 bytes each). The least recently
   * used are forgotten first.
   */
  constructor(maxEntries = 65_536, maxFiles = 65_536) {
    this.maxEntries = maxEntries
    this.maxFiles = maxFiles
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
    known.used = ++this.uses
    return known.bytes
  }

  /** Remembers `bytes` measured after reading `mtimeMs` at `readAtMs`, if that mtime was settled then. */
  remember(path: string, mtimeMs: number, readAtMs: number, bytes: number): void {
    if (readAtMs - mtimeMs < settledAfterMs(mtimeMs)) return
    this.totals.set(path, { mtimeMs, bytes, used: ++this.uses })
    if (this.totals.size > this.maxEntries) this.forgetLeastUsed()
  }

  /**
   * The least recently used tenth of the totals goes at once: a sort per tenth of the bound's
   * insertions, where moving each entry to the end of the map on every lookup cost a fifth of a
   * push's measurement (2.2 against 1.7 ms for a repository's 258 object directories).
   */
  private forgetLeastUsed(): void {
    const keep = this.maxEntries - Math.floor(this.maxEntries / 10)
    const byUse = [...this.totals].sort(([, a], [, b]) => a.used - b.used)
    for (const [path] of byUse.slice(0, this.totals.size - keep)) this.totals.delete(path)
  }

  /** The sizes of the files last read in `path` by name, when it is a loose-object directory read before. */
  filesOf(path: string): FileSizes | undefined {
    return this.files.get(path)
  }

  /** Remembers the sizes of the files now in the loose-object directory `path` (none for other directories). */
  rememberFiles(path: string, sizes: FileSizes): void {
    if (!looseObjectDirectory.test(path)) return
    this.dropFiles(path)
    if (sizes.size > this.maxFiles) return
    this.files.set(path, sizes)
    this.filesHeld += sizes.size
    while (this.filesHeld > this.maxFiles) {
      const oldest = this.files.keys().next()
      if (oldest.done === true) break
      this.dropFiles(oldest.value)
    }
  }

  /** Forgets everything under `prefix` (a repository removed or moved). */
  forgetUnder(prefix: string): void {
    for (const path of this.totals.keys()) {
      if (path.startsWith(prefix)) this.totals.delete(path)
    }
    for (const path of this.files.keys()) {
      if (path.startsWith(prefix)) this.dropFiles(path)
    }
  }

  private dropFiles(path: string): void {
    const held = this.files.get(path)
    if (held === undefined) return
    this.files.delete(path)
    this.filesHeld -= held.size
  }
}
