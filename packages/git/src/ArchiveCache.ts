/**
 * The archive cache on disk (`<cacheDir>/<repository id>/<commit>-<prefix>.<format>`), measured and
 * pruned from what is there: every process sharing the data directory sees the same files, so a
 * pass by any of them bounds the cache for all. Every use marks a file's mtime; a pass removes the
 * files used longest ago, down to 80% of the bound, and leaves those used in the last minute, so
 * an archive is never removed between being found and being opened for its response.
 */
import { readdir, rm, stat } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import { JobFailed } from "@kiln/domain/coordination/Jobs"
import * as PeriodicTask from "@kiln/domain/coordination/PeriodicTask"

/** How long a used archive is safe from removal: far longer than finding it and opening it takes. */
export const IN_USE_MS = 60_000

/** A finished archive's file name (work files carry a suffix after it). */
const archiveName = /^[0-9a-f]{40}-[A-Za-z0-9._-]+\.(?:zip|tar\.gz|bundle)$/

export interface CachedFile {
  readonly path: string
  readonly size: number
  /** The file's mtime: when it was made or last served. */
  readonly usedAt: number
}

/** Every finished archive under `cacheDir`, one directory per repository. */
export const listCache = async (cacheDir: string): Promise<ReadonlyArray<CachedFile>> => {
  const directories = await readdir(cacheDir, { withFileTypes: true }).catch(() => [])
  const files: Array<CachedFile> = []
  for (const directory of directories) {
    if (!directory.isDirectory()) continue
    const names = await readdir(join(cacheDir, directory.name)).catch(() => [])
    for (const name of names) {
      if (!archiveName.test(name)) continue
      const path = join(cacheDir, directory.name, name)
      // Removed meanwhile (discarded, pruned): nothing to count.
      const info = await stat(path).catch(() => undefined)
      if (info?.isFile() === true) files.push({ path, size: info.size, usedAt: info.mtimeMs })
    }
  }
  return files
}

const sizeOf = (files: ReadonlyArray<CachedFile>) => files.reduce((sum, file) => sum + file.size, 0)

/** Bytes of finished archives in the cache. */
export const archiveCacheSize = async (cacheDir: string): Promise<number> => sizeOf(await listCache(cacheDir))

/**
 * When the cache is past `maxBytes`, removes the archives used longest ago, none in use, until it
 * is down to 80% of it; returns the bytes left.
 */
export const pruneArchiveCache = async (cacheDir: string, maxBytes: number): Promise<number> => {
  const files = [...await listCache(cacheDir)].sort((a, b) => a.usedAt - b.usedAt)
  let total = sizeOf(files)
  if (total <= maxBytes) return total
  const inUseSince = Date.now() - IN_USE_MS
  for (const file of files) {
    if (total <= maxBytes * 0.8 || file.usedAt > inUseSince) break
    await rm(file.path, { force: true })
    total -= file.size
  }
  return total
}

/**
 * The pass over the disk as a periodic task: once a minute, whichever process takes it, the cache
 * is brought back within `maxBytes`, whatever process added the files.
 */
export const pruningTask = (cacheDir: string, maxBytes: number) =>
  PeriodicTask.make({
    kind: "archive-cache-prune",
    every: 60_000,
    lease: 10 * 60_000,
    run: Effect.tryPromise({
      try: () => pruneArchiveCache(cacheDir, maxBytes),
      catch: (error) => new JobFailed({ message: error instanceof Error ? error.message : String(error) })
    }).pipe(Effect.asVoid)
  })

