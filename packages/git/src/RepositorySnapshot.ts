/**
 * What to copy of a bare repository that may be pushed to while it is copied, so the copy never
 * holds a half-written ref or pack:
 *
 * - the refs are read once through git (`for-each-ref`, which takes each ref whole, never a ref
 *   being written) and written into the copy as one `packed-refs`; no loose ref file is copied;
 * - git writes a push's objects before it moves any ref, so every object those refs reach is
 *   already in `objects/` when the refs were read; objects are listed after, without git's
 *   temporary files (`tmp_*`, `incoming-*` quarantines, `*.lock`) and without a pack whose index
 *   is not there yet (git renames the index last);
 * - `gc.pid` is git's own lock against a concurrent `gc`/`repack` (receive-pack's auto gc): held
 *   while the files are copied, nothing listed is deleted under the copy.
 */
import { open, readdir, readFile, rm, stat } from "node:fs/promises"
import { hostname } from "node:os"
import { join } from "node:path"
import { type GitCommandOptions, readRefs } from "./GitCommand.ts"

export interface SnapshotFile {
  /** Relative to the repository directory, with `/`. */
  readonly path: string
  readonly source: string
  readonly size: number
  readonly mode: number
}

export interface RepositorySnapshot {
  /** Files copied as they are. */
  readonly files: ReadonlyArray<SnapshotFile>
  /** Files written for the copy: `packed-refs` (and `HEAD`, as read). */
  readonly written: ReadonlyArray<{ readonly path: string; readonly content: Buffer }>
  /** Empty directories git needs to recognise a repository. */
  readonly directories: ReadonlyArray<string>
  readonly refs: ReadonlyMap<string, string>
  /** Gives back git's gc lock; call it once the files are copied. */
  readonly release: () => Promise<void>
}

const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined

const isTemporary = (name: string): boolean =>
  name.startsWith("tmp_") || name.startsWith("incoming-") || name.endsWith(".lock") || name.startsWith(".tmp")

/**
 * Top-level entries that are rewritten (refs), transient, or logs that may be mid-append; and
 * `hooks/`, programs git runs at a push: Kiln installs none, and a restore never brings any back.
 */
const skippedTopLevel = new Set(["refs", "packed-refs", "logs", "gc.pid", "gc.log", "FETCH_HEAD", "ORIG_HEAD", "shallow.lock", "hooks"])

const walk = async (root: string, relative: string, into: Array<SnapshotFile>): Promise<void> => {
  const entries = await readdir(join(root, relative), { withFileTypes: true }).catch((error: unknown) => {
    if (errorCode(error) === "ENOENT") return []
    throw error
  })
  const names = new Set(entries.map((entry) => entry.name))
  for (const entry of entries) {
    if (isTemporary(entry.name)) continue
    const path = relative === "" ? entry.name : `${relative}/${entry.name}`
    if (relative === "" && skippedTopLevel.has(entry.name)) continue
    // A pack is usable once its index is there; an index without its pack is a leftover.
    if (entry.name.endsWith(".pack") && !names.has(`${entry.name.slice(0, -5)}.idx`)) continue
    if (/\.(idx|rev|bitmap|keep|promisor|mtimes)$/.test(entry.name) && entry.name.startsWith("pack-")) {
      if (!names.has(entry.name.replace(/\.[a-z]+$/, ".pack"))) continue
    }
    if (entry.isDirectory()) {
      await walk(root, path, into)
    } else if (entry.isFile()) {
      const info = await stat(join(root, path))
      into.push({ path, source: join(root, path), size: info.size, mode: info.mode & 0o777 })
    }
  }
}

const gcLockAge = 12 * 60 * 60 * 1000

/** Takes `gc.pid` as git does (pid and host name); waits while a gc holds it. */
const takeGcLock = async (gitdir: string): Promise<() => Promise<void>> => {
  const file = join(gitdir, "gc.pid")
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, "wx")
      await handle.writeFile(`${process.pid} ${hostname()}`)
      await handle.close()
      return () => rm(file, { force: true })
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error
      // git itself disregards a lock older than 12 hours.
      const info = await stat(file).catch(() => undefined)
      if (info !== undefined && Date.now() - info.mtimeMs > gcLockAge) {
        await rm(file, { force: true })
        continue
      }
      if (attempt > 600) throw new Error(`${file} is held (a git gc is running)`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

export const snapshotRepository = async (options: GitCommandOptions, gitdir: string): Promise<RepositorySnapshot> => {
  const release = await takeGcLock(gitdir)
  try {
    const head = await readFile(join(gitdir, "HEAD"))
    const refs = await readRefs(options, gitdir)
    const files: Array<SnapshotFile> = []
    await walk(gitdir, "", files)
    const packed = ["# pack-refs with: sorted", ...[...refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([ref, oid]) => `${oid} ${ref}`)]
    return {
      files: files.filter((file) => file.path !== "HEAD"),
      written: [{ path: "HEAD", content: head }, { path: "packed-refs", content: Buffer.from(`${packed.join("\n")}\n`) }],
      directories: ["refs", "refs/heads", "refs/tags"],
      refs,
      release
    }
  } catch (error) {
    await release()
    throw error
  }
}
