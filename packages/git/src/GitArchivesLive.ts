/**
 * The GitArchives adapter: `git archive` (zip, tar.gz) and `git bundle` written straight from git's
 * stdout to a file under the cache directory, then served from that file. Memory stays flat
 * whatever the repository size: bytes flow git → file → socket through streams only.
 *
 * Why the git CLI rather than an isomorphic-git walk: on a 30 MB repository `git archive
 * --format=tar.gz` took 0.58 s against 1.7 s for isomorphic-git + tar-stream + zlib, and its
 * output is the reference the archives must match (paths, modes, symlinks, commit-time mtimes).
 * The files are named by commit id, prefix and format, which fix their bytes; a file is written
 * under a temporary name and renamed, so readers never see a partial archive.
 *
 * Each repository's archives sit in a directory named by its id (`<cacheDir>/<id>/`), removed
 * whole when the repository is deleted or renamed. The cache is bounded at every moment (see
 * ArchiveCacheSpace): every use marks a file's mtime, an archive reserves its bytes as git writes
 * them, and those used longest ago make room. At most `maxConcurrent` archives are made at once;
 * more requests wait for a turn (each `git archive` takes a core and memory), at most `maxWaiting`
 * of them (the others are refused, 503 with Retry-After), and an archive nobody waits for any more
 * (every request for it went away) leaves the queue unmade.
 */
import { spawn } from "node:child_process"
import { createReadStream, createWriteStream, type ReadStream } from "node:fs"
import { mkdir, mkdtemp, rename, rm, stat, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { pipeline } from "node:stream/promises"
import { Effect, Layer, Stream } from "effect"
import { Invalid, NotFound } from "@kiln/domain/errors"
import {
  type Archive,
  ArchiveCacheFull,
  type ArchivedRepository,
  type ArchiveFormat,
  ArchivesBusy,
  GitArchives
} from "@kiln/domain/git/GitArchives"
import type { RepositoryLocation } from "@kiln/domain/git/GitStorage"
import { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import { isValidRefName } from "@kiln/domain/git/RefName"
import { ArchiveCacheSpace, type NoRoom } from "./ArchiveCacheSpace.ts"
import { ConcurrencyLimit, QueueFull } from "./ConcurrencyLimit.ts"
import { runGit } from "./GitCommand.ts"
import { gitEnvironment } from "./GitEnvironment.ts"
import { isStorageName, repositoryPath, stagingPath, trashPath } from "./RepositoryPaths.ts"

export interface GitArchivesOptions {
  /** Where finished archives are kept. */
  readonly cacheDir: string
  /** Bytes of archives kept; past it, those used longest ago are removed. Unbounded when absent. */
  readonly maxBytes?: number
  /** Archives made at once; more wait. Default 2. */
  readonly maxConcurrent?: number
  /** Archives that may wait for a turn; more are refused (ArchivesBusy). Default 16. */
  readonly maxWaiting?: number
  readonly gitBinary?: string
}

const fullId = /^[0-9a-f]{40}$/

/** An archive being made (or waiting for its turn) and the requests waiting for it. */
interface Pending {
  done: Promise<void>
  waiters: number
  started: boolean
  readonly cancel: AbortController
}

/** When a refused archive request (the queue was full) may try again: a few archives' time. */
const BUSY_RETRY_AFTER_SECONDS = 10

/** Space is granted in steps of this much (or less, for a small cache), not per chunk. */
const RESERVE_STEP = 1024 * 1024

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The cache had no room for the archive being written: it was stopped. */
class NoRoomError extends Error {
  readonly reason: NoRoom
  constructor(reason: NoRoom) {
    super(`no room in the archive cache: ${reason}`)
    this.reason = reason
  }
}

/**
 * Runs git with its stdout going to `file`, each step of it reserved in `space` first; resolves
 * with the bytes granted, fails with git's stderr when it exits non-zero, and with NoRoomError
 * (git stopped, its partial file removed, then its reservation given back) when the cache has no room.
 */
const gitToFile = (
  gitBinary: string,
  args: ReadonlyArray<string>,
  file: string,
  space: ArchiveCacheSpace
): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(gitBinary, [...args], { env: gitEnvironment(), stdio: ["ignore", "pipe", "pipe"] })
    const stderr: Array<Buffer> = []
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk))
    const step = Math.max(1, Math.min(RESERVE_STEP, Math.floor((space.maxBytes ?? RESERVE_STEP) / 8)))
    let granted = 0
    let written = 0
    const metered = async function*(source: AsyncIterable<Buffer>) {
      let refused: NoRoom | undefined
      for await (const chunk of source) {
        if (refused !== undefined) {
          // Only counting now, to tell "never fits" from "no room for now".
          written += chunk.length
          if (written > (space.maxBytes ?? Infinity)) throw new NoRoomError("larger-than-cache")
          continue
        }
        while (refused === undefined && written + chunk.length > granted) {
          const more = Math.max(step, written + chunk.length - granted)
          refused = await space.reserve(more, granted)
          if (refused === "larger-than-cache") throw new NoRoomError(refused)
          if (refused === undefined) granted += more
        }
        written += chunk.length
        if (refused === undefined) yield chunk
      }
      if (refused !== undefined) throw new NoRoomError(refused)
    }
    const done = pipeline(child.stdout, metered, createWriteStream(file))
    let failed = false
    const fail = (error: unknown) => {
      // The pipeline and the process may both report one failure: give the space back once.
      if (failed) return
      failed = true
      child.kill("SIGKILL")
      // The space goes back only once the partial file is gone: until then its bytes are on disk.
      void rm(file, { force: true }).catch(() => undefined).finally(() => {
        space.release(granted)
        reject(error)
      })
    }
    done.catch(fail)
    child.on("error", fail)
    child.on("close", (code) => {
      done.then(() => {
        if (code === 0) resolve(granted)
        else fail(new Error(`git ${args.find((arg) => !arg.startsWith("-")) ?? ""} exited ${code}: ${Buffer.concat(stderr).toString("utf8").trim()}`))
      }, () => undefined)
    })
  })

/**
 * A bundle of the commit as Forgejo makes one: a throw-away repository that borrows the objects
 * (alternates), one branch `bundle` at the commit, HEAD on it. The bundle goes to git's stdout, so
 * its bytes are reserved like an archive's.
 */
const writeBundle = async (gitBinary: string, gitdir: string, commitId: string, file: string, space: ArchiveCacheSpace) => {
  // Outside the cache: its few files are no archive's bytes.
  const scratch = await mkdtemp(join(tmpdir(), "kiln-bundle-"))
  try {
    const run = async (args: ReadonlyArray<string>) => {
      const result = await runGit({ gitBinary }, scratch, args)
      if (result.exitCode !== 0) throw new Error(`git ${args[0] ?? ""} failed: ${result.stderr.trim()}`)
    }
    const init = await runGit({ gitBinary }, scratch, ["init", "--bare", "--quiet", scratch])
    if (init.exitCode !== 0) throw new Error(`git init failed: ${init.stderr.trim()}`)
    await writeFile(join(scratch, "objects", "info", "alternates"), `${join(gitdir, "objects")}\n`)
    await run(["update-ref", "refs/heads/bundle", commitId])
    await run(["symbolic-ref", "HEAD", "refs/heads/bundle"])
    return await gitToFile(gitBinary, ["--git-dir", scratch, "bundle", "create", "--quiet", "-", "refs/heads/bundle", "HEAD"], file, space)
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

const extensionOf: Record<ArchiveFormat, string> = { zip: "zip", "tar.gz": "tar.gz", bundle: "bundle" }

const isMissing = (error: unknown) => error instanceof Error && "code" in error && error.code === "ENOENT"

/** Destroys a file stream and waits until its descriptor is closed (at once if it already is). */
const closeFile = (file: ReadStream) =>
  Effect.callback<void>((resume) => {
    if (file.closed) return resume(Effect.void)
    file.once("close", () => resume(Effect.void))
    file.destroy()
  })

export const makeGitArchives = (root: string, options: GitArchivesOptions) =>
  Effect.sync(() => {
    const gitBinary = options.gitBinary ?? "git"
    /**
     * Archives being written in this process: concurrent requests for one wait for the same file.
     * `waiters` counts the requests still waiting; when the last goes, `cancel` takes the archive
     * out of the queue (one already being written is finished: it is kept for the next request).
     */
    const pending = new Map<string, Pending>()
    const space = new ArchiveCacheSpace(options.cacheDir, options.maxBytes)
    const turns = new ConcurrencyLimit(options.maxConcurrent ?? 2, options.maxWaiting ?? 16)

    const generate = (gitdir: string, commitId: string, format: ArchiveFormat, prefix: string, file: string, entry: Pending) =>
      turns.run(async () => {
        entry.started = true
        await mkdir(dirname(file), { recursive: true })
        const temporary = stagingPath(file)
        // Held until the archive is renamed into place, or until its file is gone.
        let held = 0
        try {
          held = format === "bundle"
            ? await writeBundle(gitBinary, gitdir, commitId, temporary, space)
            : await gitToFile(gitBinary, ["--git-dir", gitdir, "archive", `--format=${format}`, `--prefix=${prefix}/`, commitId], temporary, space)
          const { size } = await stat(temporary)
          await rename(temporary, file)
          space.finish(held, size)
          held = 0
        } finally {
          await rm(temporary, { force: true })
          space.release(held)
        }
      }, entry.cancel.signal)

    const ensure = (
      gitdir: string,
      commitId: string,
      format: ArchiveFormat,
      prefix: string,
      file: string,
      signal: AbortSignal
    ): Promise<void> => {
      const found = pending.get(file)
      const entry: Pending = found ?? { done: Promise.resolve(), waiters: 0, started: false, cancel: new AbortController() }
      if (found === undefined) {
        const forget = () => {
          if (pending.get(file) === entry) pending.delete(file)
        }
        // Marking the file used is also the test that it is there.
        const now = new Date()
        entry.done = utimes(file, now, now).then(
          () => undefined,
          (error: unknown) => {
            if (!isMissing(error)) throw error
            return generate(gitdir, commitId, format, prefix, file, entry)
          }
        ).finally(forget)
        pending.set(file, entry)
      }
      entry.waiters++
      signal.addEventListener("abort", () => {
        if (--entry.waiters > 0 || entry.started) return
        // Nobody waits for it and git has not started: out of the queue, and a later request starts afresh.
        entry.cancel.abort()
        if (pending.get(file) === entry) pending.delete(file)
      }, { once: true })
      return entry.done
    }

    // The file is opened only when the stream runs and closed when the run ends, fails or is
    // interrupted: a response never sent (HEAD, headers Node refuses, a client gone) drops its
    // stream unrun, and a file opened up front stayed open for good.
    const readFile = (file: string, size: number): Archive => ({
      size,
      read: (range) =>
        Stream.unwrap(
          Effect.acquireRelease(
            Effect.sync(() => createReadStream(file, range === undefined ? {} : { start: range.start, end: range.end })),
            closeFile
          ).pipe(Effect.map((opened) =>
            Stream.fromAsyncIterable(opened, (error) => new GitStorageFailure({ operation: "read archive", message: describe(error) }))
          ))
        ).pipe(Stream.map((chunk: Buffer) => new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)))
    })

    /** The bare repository of `location`, which must exist. */
    const open = (location: RepositoryLocation) =>
      Effect.gen(function*() {
        if (!isStorageName(location.owner) || !isStorageName(location.name)) {
          return yield* new Invalid({ message: `not a repository name: ${location.owner}/${location.name}` })
        }
        const gitdir = repositoryPath(root, location)
        const present = yield* Effect.promise(() => stat(join(gitdir, "HEAD")).then(() => true, () => false))
        if (!present) return yield* new NotFound({ message: `repository does not exist [owner: ${location.owner}, name: ${location.name}]` })
        return gitdir
      })

    const repositoryDir = (repositoryId: number) => join(options.cacheDir, String(repositoryId))

    return GitArchives.of({
      resolve: (location, ref) =>
        Effect.gen(function*() {
          const gitdir = yield* open(location)
          const missing = new NotFound({ message: `reference does not exist [name: ${ref}]` })
          // Only ref names and hex ids reach git, never an option or a revision expression.
          if (ref.startsWith("-") || !(isValidRefName(ref) || /^[0-9a-fA-F]{4,40}$/.test(ref))) return yield* missing
          // The CLI, not the pack cache: resolving one ref must not load a large pack into memory.
          const result = yield* Effect.promise(() =>
            runGit({ gitBinary }, gitdir, ["log", "-1", "--no-walk", "--format=%H %ct", `${ref}^{commit}`, "--"]))
          const [id = "", seconds = ""] = result.stdout.trim().split(" ")
          if (result.exitCode !== 0 || !fullId.test(id)) return yield* missing
          return { id, committedAt: Number(seconds) }
        }),

      archive: (repository: ArchivedRepository, commitId, format, prefix) =>
        Effect.gen(function*() {
          if (!isStorageName(prefix)) return yield* new Invalid({ message: `not a repository name: ${prefix}` })
          if (!fullId.test(commitId)) return yield* new Invalid({ message: `not a commit id: ${commitId}` })
          if (!Number.isSafeInteger(repository.id) || repository.id <= 0) {
            return yield* new Invalid({ message: `not a repository id: ${repository.id}` })
          }
          const gitdir = yield* open(repository.location)
          const file = join(repositoryDir(repository.id), `${commitId}-${prefix}.${extensionOf[format]}`)
          yield* Effect.tryPromise({
            try: (signal) => ensure(gitdir, commitId, format, prefix, file, signal),
            catch: (error) =>
              error instanceof QueueFull
                ? new ArchivesBusy({ message: "too many archives are waiting to be made; try again later", retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS })
                : error instanceof NoRoomError
                ? new ArchiveCacheFull({
                  message: error.reason === "larger-than-cache"
                    ? `the archive is larger than the archive cache (${space.maxBytes ?? 0} bytes)`
                    : "the archive cache is full of archives being downloaded; try again later",
                  transient: error.reason === "held-by-recent-archives"
                })
                : new GitStorageFailure({ operation: "archive", message: describe(error) })
          })
          const { size } = yield* Effect.tryPromise({
            try: () => stat(file),
            catch: (error) => new GitStorageFailure({ operation: "archive", message: describe(error) })
          })
          return readFile(file, size)
        }),

      discard: (repositoryId) =>
        Effect.tryPromise({
          try: async () => {
            if (!Number.isSafeInteger(repositoryId) || repositoryId <= 0) return
            // Out of the way in one step, so that nothing is served from a half-removed directory.
            const trash = trashPath(repositoryDir(repositoryId))
            const moved = await rename(repositoryDir(repositoryId), trash).then(() => true, (error: unknown) => {
              if (isMissing(error)) return false
              throw error
            })
            if (!moved) return
            await rm(trash, { recursive: true, force: true })
            space.recount()
          },
          catch: (error) => new GitStorageFailure({ operation: "discard archives", message: describe(error) })
        })
    })
  })

export const GitArchivesLive = (root: string, options: GitArchivesOptions): Layer.Layer<GitArchives> =>
  Layer.effect(GitArchives, makeGitArchives(root, options))
