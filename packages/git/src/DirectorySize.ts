/**
 * Bytes under a directory: a repository's size, and a clone's as it grows. Another process's push or
 * repack may add and delete files and directories as we walk: what vanished no longer counts (a
 * directory included), and the caller retries a walk that failed otherwise.
 */
import { type Dirent, lstatSync, readdirSync, statSync } from "node:fs"
import { sep } from "node:path"
import { nextTurn } from "./EventLoopTurn.ts"
import type { FileSizes, SettledDirectorySizes } from "./SettledDirectorySizes.ts"

/**
 * Entries looked at between two turns of the event loop. The walk is synchronous, a few µs per
 * entry, where a promise per entry cost ~20 µs of the event loop's time and more of the thread
 * pool's (a push measures its repository inside its write section); a clone of a million files
 * still lets other work in every couple of milliseconds.
 */
const ENTRIES_PER_TURN = 512

interface WalkState {
  readonly settled: SettledDirectorySizes | undefined
  /** When the walk began: a directory's mtime is read after it, so its total is settled no later than measured from here. */
  readonly startedAtMs: number
  looked: number
}

/** The rest of a SHA-1 or SHA-256 object id after its two-character directory. */
const isObjectFileName = (name: string): boolean => name.length === 38 || name.length === 62

const isVanished = (error: unknown): boolean => error instanceof Error && "code" in error && error.code === "ENOENT"

/**
 * Bytes of the files under `path`; fails when `path` itself cannot be read. With `settled`, the
 * totals of object directories unchanged since they were last measured are reused.
 */
export const directorySize = async (path: string, settled?: SettledDirectorySizes): Promise<number> =>
  sizeUnder(path.length > 1 && path.endsWith(sep) ? path.slice(0, -1) : path, true, { settled, startedAtMs: Date.now(), looked: 0 })

/** `path.join` normalizes, and allocates for it, on every one of the walk's thousands of entries. */
const child = (directory: string, name: string): string => `${directory}${sep}${name}`

/**
 * A number when known without waiting (an object directory, remembered or read at once: every one
 * of the ~257 a push's measurement looks at), a promise when a walk had to yield: a promise and an
 * `await` per directory cost more than the stat that settles most of them.
 */
const sizeUnder = (path: string, top: boolean, state: WalkState): number | Promise<number> => {
  const { settled } = state
  if (settled === undefined || !settled.applies(path)) return walk(path, top, state)
  const readAtMs = state.startedAtMs
  // Synchronous: one call per object directory (257 at most), ~3 µs each where a promise's costs ~20.
  const info = statSync(path, { throwIfNoEntry: top })
  if (info === undefined) return 0
  const known = settled.lookup(path, info.mtimeMs)
  if (known !== undefined) return known
  // The mtime is read before the walk: a change during it moves the mtime, and is seen next time.
  const files = filesUnder(path, settled.filesOf(path))
  if (files !== undefined) {
    settled.remember(path, info.mtimeMs, readAtMs, files.bytes)
    settled.rememberFiles(path, files.sizes)
    return files.bytes
  }
  return walk(path, top, state).then((bytes) => {
    settled.remember(path, info.mtimeMs, readAtMs, bytes)
    return bytes
  })
}

/**
 * Bytes of the files right in an object directory, synchronously: a fan-out directory holds a few
 * dozen loose objects at most (git's auto gc packs them at ~6,700 in all) and the pack directory a
 * few files per pack, so this holds the event loop well under a millisecond, at a tenth of the CPU
 * of a promise per file. Undefined when it holds a directory (git makes none there): walked then.
 *
 * With `known` (the sizes read last time in a loose-object directory), only new names are stat'ed;
 * a name gone from it means gc ran, and then every file is stat'ed again.
 */
const filesUnder = (path: string, known: FileSizes | undefined): { readonly bytes: number; readonly sizes: FileSizes } | undefined => {
  let entries: Array<Dirent>
  try {
    entries = readdirSync(path, { withFileTypes: true })
  } catch (error) {
    if (isVanished(error)) return { bytes: 0, sizes: new Map() }
    throw error
  }
  const sizes = new Map<string, number>()
  let kept = 0
  let bytes = 0
  for (const entry of entries) {
    if (entry.isDirectory()) return undefined
    if (!entry.isFile()) continue
    let size = known?.get(entry.name)
    if (size === undefined) {
      const stats = lstatSync(child(path, entry.name), { throwIfNoEntry: false })
      size = stats?.size ?? 0
      // A temporary file (`tmp_obj_*`) still grows: only a finished object's size is for good.
      if (stats !== undefined && isObjectFileName(entry.name)) sizes.set(entry.name, size)
    } else {
      kept++
      sizes.set(entry.name, size)
    }
    bytes += size
  }
  if (known === undefined || kept === known.size) return { bytes, sizes }
  return filesUnder(path, undefined)
}

const walk = async (path: string, top: boolean, state: WalkState): Promise<number> => {
  let entries: Array<Dirent>
  try {
    entries = readdirSync(path, { withFileTypes: true })
  } catch (error) {
    if (!top && isVanished(error)) return 0
    throw error
  }
  let total = 0
  for (const entry of entries) {
    if (++state.looked % ENTRIES_PER_TURN === 0) await nextTurn()
    const entryPath = child(path, entry.name)
    if (entry.isDirectory()) {
      const size = sizeUnder(entryPath, false, state)
      total += typeof size === "number" ? size : await size
    }
    else if (entry.isFile()) total += lstatSync(entryPath, { throwIfNoEntry: false })?.size ?? 0
  }
  return total
}
