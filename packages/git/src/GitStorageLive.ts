/**
 * The GitStorage adapter: bare repositories under a root directory, read with isomorphic-git
 * through a warm per-repository pack cache bounded by bytes (or with `git cat-file` for
 * repositories whose packs are past that bound), refs changed with `git update-ref` so that
 * concurrent pushes and API calls meet git's own compare-and-swap.
 */
import { lstatSync, readdirSync } from "node:fs"
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises"
import { dirname, join, sep } from "node:path"
import { commit, listBranches, writeBlob, writeTree, type TreeEntry } from "isomorphic-git"
import { Effect, Layer, Option, Schedule } from "effect"
import { AlreadyExists, Conflict, Invalid, NotFound } from "@kiln/domain/errors"
import type { CommitInfo } from "@kiln/domain/git/CommitInfo"
import { type CreateRepository, FileTooLarge, GitStorage, type InitialCommit, type InitialFile, type RepositoryLocation } from "@kiln/domain/git/GitStorage"
import { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import { branchNamesAmong } from "@kiln/domain/git/Branch"
import { isValidRefName } from "@kiln/domain/git/RefName"
import { ZeroId } from "@kiln/domain/git/RefUpdate"
import { readCommitInfo, toIsomorphicActor } from "./CommitReading.ts"
import { directorySize } from "./DirectorySize.ts"
import { isomorphicGitFs as fs } from "./IsomorphicGitFs.ts"
import { SettledDirectorySizes } from "./SettledDirectorySizes.ts"
import { type GitCommandOptions, readRefs, runGit } from "./GitCommand.ts"
import { gitReader, isomorphicReader, type ObjectReader } from "./ObjectReaders.ts"
import { PackCaches } from "./PackCaches.ts"
import { readRef, readRefFiles } from "./RefFiles.ts"
import { isLeftBehind } from "./ProcessWorkOwner.ts"
import { isStorageName, leftoverOf, repositoryPath, stagingPath, trashPath } from "./RepositoryPaths.ts"
import { BARE_CONFIG } from "./RestoredConfig.ts"

export interface GitStorageOptions {
  /**
   * Bytes of packs the warm caches may hold in memory, all repositories together. A repository
   * whose packs alone are larger is read with `git cat-file`. Default 256 MiB.
   */
  readonly packCacheMaxBytes?: number
  /** The git executable for ref updates. Default `git` from PATH. */
  readonly gitBinary?: string
}

const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** An I/O step whose failure means "not done": reported as GitStorageFailure. */
const io = <A>(operation: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (error) => new GitStorageFailure({ operation, message: describe(error) }) })

/**
 * Bytes of the repository's packs and their indexes: what isomorphic-git may load of them. Every
 * read of a repository asks (to pick its reader): synchronously, a stat from the page cache per
 * file, where a promise per call cost the event loop ~0.2 ms on a read otherwise taking a few.
 */
const packBytes = (gitdir: string): number => {
  const directory = join(gitdir, "objects", "pack")
  let names: Array<string>
  try {
    names = readdirSync(directory)
  } catch (error) {
    if (errorCode(error) === "ENOENT") return 0
    throw error
  }
  let total = 0
  for (const name of names) {
    if (!name.endsWith(".pack") && !name.endsWith(".idx")) continue
    // A concurrent repack may delete packs as we look; they no longer count.
    total += lstatSync(join(directory, name), { throwIfNoEntry: false })?.size ?? 0
  }
  return total
}

const pathExists = (path: string) => Effect.sync(() => lstatSync(path, { throwIfNoEntry: false }) !== undefined)

const label = (location: RepositoryLocation) => `${location.owner}/${location.name}`
const repositoryMissing = (location: RepositoryLocation) =>
  new NotFound({ message: `repository does not exist [owner: ${location.owner}, name: ${location.name}]` })
const filesExist = (location: RepositoryLocation) =>
  new AlreadyExists({ message: `repository files already exist [uname: ${location.owner}, name: ${location.name}]` })


const initBare = async (gitdir: string, defaultBranch: string) => {
  for (const directory of ["objects/info", "objects/pack", "refs/heads", "refs/tags", "info"]) {
    await mkdir(join(gitdir, directory), { recursive: true })
  }
  await writeFile(join(gitdir, "config"), BARE_CONFIG)
  await writeFile(join(gitdir, "HEAD"), `ref: refs/heads/${defaultBranch}\n`)
}

type FileTree = Map<string, Uint8Array | FileTree>

/** Arranges `files` into directories, rejecting paths git could not store or that collide. */
const fileTree = (files: ReadonlyArray<InitialFile>): FileTree | Invalid => {
  const root: FileTree = new Map()
  for (const file of files) {
    const segments = file.path.split("/")
    const fileName = segments.pop()
    const bad = (segment: string) => segment === "" || segment === "." || segment === ".." || segment.toLowerCase() === ".git"
    if (fileName === undefined || bad(fileName) || segments.some(bad)) {
      return new Invalid({ message: `invalid file path: ${file.path}` })
    }
    let directory = root
    for (const segment of segments) {
      const next = directory.get(segment) ?? new Map()
      if (next instanceof Uint8Array) return new Invalid({ message: `file path collides with a file: ${file.path}` })
      directory.set(segment, next)
      directory = next
    }
    if (directory.has(fileName)) return new Invalid({ message: `duplicate file path: ${file.path}` })
    directory.set(fileName, typeof file.content === "string" ? new TextEncoder().encode(file.content) : file.content)
  }
  return root
}

const writeFileTree = async (gitdir: string, tree: FileTree): Promise<string> => {
  const entries: Array<TreeEntry> = []
  for (const [path, node] of tree) {
    entries.push(
      node instanceof Uint8Array
        ? { mode: "100644", path, type: "blob", oid: await writeBlob({ fs, gitdir, blob: node }) }
        : { mode: "040000", path, type: "tree", oid: await writeFileTree(gitdir, node) }
    )
  }
  return writeTree({ fs, gitdir, tree: entries })
}

/** Writes the first commit of a fresh repository straight onto `branch`, signed when asked. */
const writeInitialCommit = (gitdir: string, branch: string, initial: InitialCommit) =>
  Effect.gen(function*() {
    const tree = fileTree(initial.files)
    if (tree instanceof Invalid) return yield* tree
    const services = yield* Effect.context<never>()
    const { sign } = initial
    const signing = sign === undefined ? {} : {
      // isomorphic-git signs only when a key is named; the callback owns the real key.
      signingKey: "kiln",
      onSign: async ({ payload }: { payload: string }) => ({
        signature: await Effect.runPromiseWith(services)(sign(payload))
      })
    }
    const id = yield* io("create", async () =>
      commit({
        fs,
        gitdir,
        cache: {},
        ref: `refs/heads/${branch}`,
        tree: await writeFileTree(gitdir, tree),
        parent: [],
        message: initial.message,
        author: toIsomorphicActor(initial.author),
        committer: toIsomorphicActor(initial.committer),
        ...signing
      }))
    return yield* Effect.promise(() => readCommitInfo(gitdir, {}, id))
  })

/**
 * Staging and trash directories left by a process that died mid-create or mid-remove. Those of a
 * live process (another one on this data directory) are its work in progress and stay.
 */
const sweepLeftovers = (root: string) =>
  Effect.promise(async () => {
    await mkdir(root, { recursive: true })
    for (const owner of await readdir(root, { withFileTypes: true })) {
      if (!owner.isDirectory()) continue
      for (const entry of await readdir(join(root, owner.name)).catch(() => [])) {
        const found = leftoverOf(entry)
        const path = join(root, owner.name, entry)
        if (found !== undefined && await isLeftBehind(path, found.owner)) await rm(path, { recursive: true, force: true })
      }
    }
  })

/** Where loading unseen packs whole (~1.7 ms per MB) costs more than starting `git cat-file`. */
const UNSEEN_PACK_BYTES_THROUGH_GIT = 4 * 1024 ** 2

const hexId = /^[0-9a-f]+$/
const fullId = /^[0-9a-f]{40}$/

export const makeGitStorage = (root: string, options: GitStorageOptions = {}) =>
  Effect.gen(function*() {
    yield* sweepLeftovers(root)
    const caches = new PackCaches(options.packCacheMaxBytes ?? 256 * 1024 ** 2)
    const settledSizes = new SettledDirectorySizes()
    const command: GitCommandOptions = { gitBinary: options.gitBinary ?? "git" }

    const locate = (location: RepositoryLocation): Effect.Effect<string, Invalid> =>
      isStorageName(location.owner) && isStorageName(location.name)
        ? Effect.succeed(repositoryPath(root, location))
        : Effect.fail(new Invalid({ message: `not a repository name: ${label(location)}` }))

    /** The path of a repository that exists. */
    const open = (location: RepositoryLocation) =>
      Effect.gen(function*() {
        const gitdir = yield* locate(location)
        if (!(yield* pathExists(join(gitdir, "HEAD")))) return yield* repositoryMissing(location)
        return { gitdir }
      })

    /**
     * `use` with the reader the repository's pack size, and the room left in the pack cache budget,
     * call for: its pack cache is held (counted, never evicted) until `use` ends. A read that finds
     * large packs its cache has not seen (a push brought them; the server restarted) goes through
     * git, which reads just the objects asked for, and leaves loading them whole to the next read:
     * a push's own follow-up reads a commit or two of the pack it brought (its branch tips), and a
     * 24 MB pack cost ~40 ms of CPU to load for that, against ~3 ms for a `git cat-file`.
     */
    const withReader = <A, E>(
      location: RepositoryLocation,
      use: (gitdir: string, reader: ObjectReader) => Effect.Effect<A, E>
    ) =>
      Effect.flatMap(open(location), ({ gitdir }) =>
        Effect.acquireUseRelease(
          Effect.sync(() => caches.acquire(gitdir, packBytes(gitdir))),
          (lease) =>
            use(
              gitdir,
              lease === undefined || lease.unseenBytes >= UNSEEN_PACK_BYTES_THROUGH_GIT
                ? gitReader(command, gitdir)
                : isomorphicReader(gitdir, lease.cache)
            ),
          (lease) => Effect.sync(() => lease?.release())
        ))

    /**
     * The names under `refs/heads` git accepts (a ref file's name could be anything), sorted. Read
     * from the ref files, synchronously (a push asks after every push: isomorphic-git's listing, a
     * promise per file, cost ~1 ms there); with isomorphic-git when the refs are not kept in files.
     */
    const branchNamesIn = async (gitdir: string) => {
      const refs = await readRefFiles(gitdir)
      return refs === undefined ? (await listBranches({ fs, gitdir })).filter(isValidRefName).sort() : branchNamesAmong(refs.keys())
    }

    const validBranchName = (name: string) =>
      isValidRefName(name) ? Effect.void : Effect.fail(new Invalid({ message: `invalid branch name: ${name}` }))

    const commitAt = (reader: ObjectReader, id: string) =>
      Effect.gen(function*() {
        const missing = new NotFound({ message: `commit does not exist [id: ${id}]` })
        // Only a full id reaches the reader (isomorphic-git would build a file path from it).
        if (!fullId.test(id)) return yield* missing
        const [found] = yield* Effect.promise(() => reader.commits([id]))
        // The id of a tag names no commit here, although it peels to one.
        return found !== undefined && found.id === id ? found : yield* missing
      })

    const refIds = (gitdir: string) => io("read refs", () => readRefs(command, gitdir))

    const resolve = async (reader: ObjectReader, ref: string): Promise<CommitInfo | undefined> => {
      // Ref names are checked first: isomorphic-git reads refs as files, so `..` must not get there.
      const candidates = ref === "HEAD" ? [ref]
        : !isValidRefName(ref) ? []
        : ref.startsWith("refs/") ? [ref]
        : [`refs/heads/${ref}`, `refs/tags/${ref}`]
      for (const candidate of candidates) {
        // Components within git's rules can still make a path no file system holds: no such ref exists.
        const [found] = await reader.commits([candidate]).catch((error: unknown) => {
          if (errorCode(error) === "ENAMETOOLONG") return []
          throw error
        })
        if (found !== undefined) return found
      }
      const id = ref.toLowerCase()
      if (!hexId.test(id) || id.length < 4 || id.length > 40) return undefined
      const full = id.length === 40 ? id : await reader.expand(id)
      if (full === undefined) return undefined
      const [peeled] = await reader.commits([full])
      return peeled
    }

    const updateRef = (gitdir: string, args: ReadonlyArray<string>) =>
      io("update ref", () => runGit(command, gitdir, ["update-ref", ...args]))

    return GitStorage.of({
      create: (location, { defaultBranch, initialCommit }: CreateRepository) =>
        Effect.gen(function*() {
          const target = yield* locate(location)
          if (!isValidRefName(defaultBranch)) {
            return yield* new Invalid({ message: `invalid default branch name: ${defaultBranch}`, field: "default_branch" })
          }
          if (yield* pathExists(target)) return yield* filesExist(location)
          yield* io("create", () => mkdir(dirname(target), { recursive: true }))
          const staging = stagingPath(target)
          return yield* Effect.gen(function*() {
            yield* io("create", () => initBare(staging, defaultBranch))
            const created = initialCommit === undefined
              ? Option.none<CommitInfo>()
              : Option.some(yield* writeInitialCommit(staging, defaultBranch, initialCommit))
            // The one step that makes the repository visible, all at once.
            yield* Effect.tryPromise({ try: () => rename(staging, target), catch: (error) => error }).pipe(
              Effect.catch((error) =>
                Effect.fail(
                  errorCode(error) === "ENOTEMPTY" || errorCode(error) === "EEXIST"
                    ? filesExist(location)
                    : new GitStorageFailure({ operation: "create", message: describe(error) })
                ))
            )
            return created
          }).pipe(Effect.onError(() => Effect.promise(() => rm(staging, { recursive: true, force: true }))))
        }),

      remove: (location) =>
        Effect.gen(function*() {
          const target = yield* locate(location)
          const trash = trashPath(target)
          // After this rename nothing can find the repository; a crash before the delete below
          // leaves only a trash directory, which the next start sweeps away.
          const removed = yield* io("remove", () =>
            rename(target, trash).then(() => true, (error: unknown) => {
              if (errorCode(error) === "ENOENT") return false
              throw error
            }))
          caches.drop(target)
          settledSizes.forgetUnder(`${target}${sep}`)
          if (!removed) return
          yield* io("remove", () => rm(trash, { recursive: true, force: true })).pipe(
            Effect.retry({ times: 3, schedule: Schedule.spaced("100 millis") }),
            Effect.catch((failure) => Effect.logWarning(`left ${trash} for the next start to sweep: ${failure.message}`))
          )
        }),

      move: (from, to) =>
        Effect.gen(function*() {
          const source = yield* locate(from)
          const target = yield* locate(to)
          if (!(yield* pathExists(source))) return yield* repositoryMissing(from)
          if (source === target) return
          if (yield* pathExists(target)) return yield* filesExist(to)
          yield* io("move", () => mkdir(dirname(target), { recursive: true }))
          yield* Effect.tryPromise({ try: () => rename(source, target), catch: (error) => error }).pipe(
            Effect.catch((error) => {
              const code = errorCode(error)
              return Effect.fail(
                code === "ENOENT" ? repositoryMissing(from)
                  : code === "ENOTEMPTY" || code === "EEXIST" ? filesExist(to)
                  : new GitStorageFailure({ operation: "move", message: describe(error) })
              )
            })
          )
          caches.drop(source)
          settledSizes.forgetUnder(`${source}${sep}`)
          settledSizes.forgetUnder(`${target}${sep}`)
        }),


      sizeInBytes: (location) =>
        Effect.flatMap(open(location), ({ gitdir }) =>
          Effect.tryPromise({ try: () => directorySize(gitdir, settledSizes), catch: (error) => error }).pipe(
            Effect.retry({ times: 3, schedule: Schedule.exponential("20 millis") }),
            Effect.orDie
          )),

      listBranches: (location) =>
        withReader(location, (gitdir, reader) =>
          Effect.promise(async () => {
            const names = await branchNamesIn(gitdir)
            const commits = await reader.commits(names.map((name) => `refs/heads/${name}`))
            return names.flatMap((name, index) => {
              const commit = commits[index]
              return commit === undefined ? [] : [{ name, commit }]
            })
          })),

      branchNames: (location) => Effect.flatMap(open(location), ({ gitdir }) => Effect.promise(() => branchNamesIn(gitdir))),

      resolveCommit: (location, ref) =>
        withReader(location, (_gitdir, reader) =>
          Effect.gen(function*() {
            const found = yield* Effect.promise(() => resolve(reader, ref))
            if (found === undefined) return yield* new NotFound({ message: `reference does not exist [name: ${ref}]` })
            return found
          })),

      branchTip: (location, name) =>
        Effect.gen(function*() {
          const { gitdir } = yield* open(location)
          const ref = `refs/heads/${name}`
          if (!isValidRefName(ref)) return Option.none()
          const read = yield* Effect.sync(() => readRef(gitdir, ref)).pipe(Effect.catchDefect(() => Effect.succeed(undefined)))
          if (read !== undefined) return Option.fromUndefinedOr(read.id)
          // Refs kept in another format, or files that could not be read: git's reader (it reads the commit too).
          const [found] = yield* withReader(location, (_gitdir, reader) => Effect.promise(() => reader.commits([ref])))
          return Option.fromUndefinedOr(found?.id)
        }),

      commitInfo: (location, id) => withReader(location, (_gitdir, reader) => commitAt(reader, id)),

      rawCommit: (location, id) =>
        withReader(location, (_gitdir, reader) =>
          Effect.gen(function*() {
            const missing = new NotFound({ message: `commit does not exist [id: ${id}]` })
            if (!fullId.test(id)) return yield* missing
            const object = yield* Effect.promise(() => reader.rawCommit(id))
            if (object === undefined) return yield* missing
            return new TextDecoder().decode(object)
          })),

      readFile: (location, commitId, path, maxBytes) =>
        Effect.gen(function*() {
          const { gitdir } = yield* open(location)
          if (!fullId.test(commitId)) return yield* new NotFound({ message: `commit does not exist [id: ${commitId}]` })
          const filepath = path.replace(/^\/+/, "")
          // No file is named by an empty, `.` or `..` segment (git would look outside the tree).
          if (filepath.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) return Option.none()
          // The entry with its size (`git ls-tree -l`), through git itself: the size is known before
          // anything is read, and no pack is loaded whole to find it.
          const listed = yield* io("read file", () =>
            runGit({ ...command, env: { GIT_LITERAL_PATHSPECS: "1" } }, gitdir, ["ls-tree", "-l", "-z", commitId, "--", filepath]))
          if (listed.exitCode !== 0) return yield* new NotFound({ message: `commit does not exist [id: ${commitId}]` })
          const entry = /^[0-7]+ blob ([0-9a-f]{40}) +(\d+)\t(.*)$/s.exec(listed.stdout.split("\0")[0] ?? "")
          if (entry === null || entry[3] !== filepath) return Option.none()
          const [, oid = "", sizeText = "0"] = entry
          const size = Number(sizeText)
          if (maxBytes !== undefined && size > maxBytes) return yield* new FileTooLarge({ path: filepath, size, limit: maxBytes })
          const content = yield* io("read file", () => runGit(command, gitdir, ["cat-file", "blob", oid]))
          if (content.exitCode !== 0) return yield* Effect.die(new GitStorageFailure({ operation: "read file", message: content.stderr.trim() }))
          return Option.some(new Uint8Array(content.stdoutBytes.buffer, content.stdoutBytes.byteOffset, content.stdoutBytes.byteLength))
        }).pipe(Effect.catchTag("GitStorageFailure", Effect.die)),

      createBranch: (location, name, commitId) =>
        Effect.gen(function*() {
          yield* validBranchName(name)
          const { gitdir } = yield* open(location)
          const target = yield* withReader(location, (_gitdir, reader) => commitAt(reader, commitId))
          const ref = `refs/heads/${name}`
          const refs = yield* refIds(gitdir)
          if (refs.has(ref)) return yield* new AlreadyExists({ message: "The branch already exists." })
          if (refs.has(`refs/tags/${name}`)) {
            return yield* new Conflict({ message: "The branch with the same tag already exists." })
          }
          const sameName = new Conflict({ message: "The branch with the same name already exists." })
          for (const existing of refs.keys()) {
            if (existing.startsWith(`${ref}/`) || ref.startsWith(`${existing}/`)) return yield* sameName
          }
          // Zero as the old value: git refuses if the branch appeared since we looked.
          const result = yield* updateRef(gitdir, [ref, target.id, ZeroId])
          if (result.exitCode === 0) return
          if (result.stderr.includes("reference already exists")) {
            return yield* new AlreadyExists({ message: "The branch already exists." })
          }
          if (result.stderr.includes("exists; cannot create")) return yield* sameName
          return yield* new GitStorageFailure({ operation: "create branch", message: result.stderr.trim() })
        }),

      deleteBranch: (location, name, expectedId) =>
        Effect.gen(function*() {
          yield* validBranchName(name)
          const { gitdir } = yield* open(location)
          const ref = `refs/heads/${name}`
          const current = (yield* refIds(gitdir)).get(ref)
          if (current === undefined) return yield* new NotFound({ message: `branch does not exist [name: ${name}]` })
          const moved = (at: string) =>
            new Conflict({ message: `branch ${name} is at ${at}, not at ${expectedId ?? at}` })
          if (expectedId !== undefined && expectedId !== current) return yield* moved(current)
          const result = yield* updateRef(gitdir, ["-d", ref, current])
          if (result.exitCode === 0) return
          if (result.stderr.includes("but expected")) return yield* moved("a newer commit")
          return yield* new GitStorageFailure({ operation: "delete branch", message: result.stderr.trim() })
        }),

      setDefaultBranch: (location, name) =>
        Effect.gen(function*() {
          yield* validBranchName(name)
          const { gitdir } = yield* open(location)
          const result = yield* io("set default branch", () =>
            runGit(command, gitdir, ["symbolic-ref", "HEAD", `refs/heads/${name}`]))
          if (result.exitCode !== 0) {
            return yield* new GitStorageFailure({ operation: "set default branch", message: result.stderr.trim() })
          }
        })
    })
  })

export const GitStorageLive = (root: string, options: GitStorageOptions = {}): Layer.Layer<GitStorage> =>
  Layer.effect(GitStorage, makeGitStorage(root, options))
