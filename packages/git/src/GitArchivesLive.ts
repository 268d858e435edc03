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
 * whole when the repository is deleted or renamed. The cache is bounded (ArchiveCache.ts): once the
 * files this process counts pass `maxBytes` it prunes; other processes on the same data directory
 * add files it does not count, which the periodic pass over the disk (`pruneArchiveCache`) bounds.
 */
import { spawn } from "node:child_process"
import { createReadStream, createWriteStream } from "node:fs"
import { mkdir, mkdtemp, rename, rm, stat, utimes, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { pipeline } from "node:stream/promises"
import { Effect, Layer, Stream } from "effect"
import { Invalid, NotFound } from "@kiln/domain/errors"
import { type Archive, type ArchivedRepository, type ArchiveFormat, GitArchives } from "@kiln/domain/git/GitArchives"
import type { RepositoryLocation } from "@kiln/domain/git/GitStorage"
import { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import { isValidRefName } from "@kiln/domain/git/RefName"
import { archiveCacheSize, pruneArchiveCache } from "./ArchiveCache.ts"
import { runGit } from "./GitCommand.ts"
import { isStorageName, repositoryPath, stagingPath, trashPath } from "./RepositoryPaths.ts"

export interface GitArchivesOptions {
  /** Where finished archives are kept. */
  readonly cacheDir: string
  /** Bytes of archives kept; past it, those used longest ago are removed. Unbounded when absent. */
  readonly maxBytes?: number
  readonly gitBinary?: string
}

const fullId = /^[0-9a-f]{40}$/

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Runs git with its stdout going to `file`, failing with git's stderr when it exits non-zero. */
const gitToFile = (gitBinary: string, args: ReadonlyArray<string>, file: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(gitBinary, [...args], { env: { ...process.env, LC_ALL: "C" }, stdio: ["ignore", "pipe", "pipe"] })
    const stderr: Array<Buffer> = []
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk))
    const written = pipeline(child.stdout, createWriteStream(file))
    child.on("error", reject)
    child.on("close", (code) => {
      written.then(() => {
        if (code === 0) resolve()
        else reject(new Error(`git ${args.find((arg) => !arg.startsWith("-")) ?? ""} exited ${code}: ${Buffer.concat(stderr).toString("utf8").trim()}`))
      }, reject)
    })
  })

/**
 * A bundle of the commit as Forgejo makes one: a throw-away repository that borrows the objects
 * (alternates), one branch `bundle` at the commit, HEAD on it.
 */
const writeBundle = async (gitBinary: string, gitdir: string, commitId: string, file: string) => {
  const scratch = await mkdtemp(`${file}.repo-`)
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
    await run(["bundle", "create", "--quiet", file, "refs/heads/bundle", "HEAD"])
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

const extensionOf: Record<ArchiveFormat, string> = { zip: "zip", "tar.gz": "tar.gz", bundle: "bundle" }

const isMissing = (error: unknown) => error instanceof Error && "code" in error && error.code === "ENOENT"

export const makeGitArchives = (root: string, options: GitArchivesOptions) =>
  Effect.sync(() => {
    const gitBinary = options.gitBinary ?? "git"
    /** Archives being written in this process: concurrent requests for one wait for the same file. */
    const pending = new Map<string, Promise<void>>()
    /** Bytes in the cache, counted when the first archive is made (and after a discard). */
    let cachedBytes: number | undefined
    let pruning: Promise<void> | undefined

    const prune = async (maxBytes: number) => {
      cachedBytes = await pruneArchiveCache(options.cacheDir, maxBytes)
    }

    /** Counts a new archive in, and prunes (one pass at a time) once the cache is past its bound. */
    const counted = async (size: number) => {
      const maxBytes = options.maxBytes
      if (maxBytes === undefined) return
      cachedBytes = cachedBytes === undefined ? await archiveCacheSize(options.cacheDir) : cachedBytes + size
      if (cachedBytes <= maxBytes || pruning !== undefined) return
      // A pass that could not remove a file costs the response nothing: the next archive made counts afresh.
      pruning = prune(maxBytes).catch(() => {
        cachedBytes = undefined
      }).finally(() => {
        pruning = undefined
      })
      await pruning
    }

    const generate = async (gitdir: string, commitId: string, format: ArchiveFormat, prefix: string, file: string) => {
      await mkdir(dirname(file), { recursive: true })
      const temporary = stagingPath(file)
      try {
        if (format === "bundle") await writeBundle(gitBinary, gitdir, commitId, temporary)
        else {
          await gitToFile(gitBinary, ["--git-dir", gitdir, "archive", `--format=${format}`, `--prefix=${prefix}/`, commitId], temporary)
        }
        await rename(temporary, file)
      } finally {
        await rm(temporary, { force: true })
      }
      await counted((await stat(file)).size)
    }

    const ensure = (gitdir: string, commitId: string, format: ArchiveFormat, prefix: string, file: string): Promise<void> => {
      const running = pending.get(file)
      if (running !== undefined) return running
      // Marking the file used is also the test that it is there.
      const now = new Date()
      const started = utimes(file, now, now).then(
        () => undefined,
        (error: unknown) => {
          if (!isMissing(error)) throw error
          return generate(gitdir, commitId, format, prefix, file)
        }
      ).finally(() => pending.delete(file))
      pending.set(file, started)
      return started
    }

    const readFile = (file: string, size: number): Archive => ({
      size,
      read: (range) =>
        Stream.fromAsyncIterable(
          createReadStream(file, range === undefined ? {} : { start: range.start, end: range.end }),
          (error) => new GitStorageFailure({ operation: "read archive", message: describe(error) })
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
            try: () => ensure(gitdir, commitId, format, prefix, file),
            catch: (error) => new GitStorageFailure({ operation: "archive", message: describe(error) })
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
            cachedBytes = undefined
          },
          catch: (error) => new GitStorageFailure({ operation: "discard archives", message: describe(error) })
        })
    })
  })

export const GitArchivesLive = (root: string, options: GitArchivesOptions): Layer.Layer<GitArchives> =>
  Layer.effect(GitArchives, makeGitArchives(root, options))
