import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdir, symlink, chmod, writeFile, readdir, readFile, stat, utimes } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Fiber, Stream } from "effect"
import type { ArchiveFormat } from "@kiln/domain/git/GitArchives"
import { pruneArchiveCache } from "../src/ArchiveCache.ts"
import { makeGitArchives } from "../src/GitArchivesLive.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let root: string
let work: string
let commit: string
beforeAll(async () => {
  sandbox = await GitSandbox.make()
  root = sandbox.path("data")
  const bare = join(root, "ada", "repo.git")
  await mkdir(join(root, "ada"), { recursive: true })
  await sandbox.git(["init", "-q", "--bare", "-b", "main", bare])
  work = await sandbox.workTree("work")
  await mkdir(join(work, "a", "b"), { recursive: true })
  await writeFile(join(work, "a", "b", "c.txt"), "deep\n")
  await writeFile(join(work, "tool.sh"), "#!/bin/sh\n")
  await chmod(join(work, "tool.sh"), 0o755)
  await symlink("a/b/c.txt", join(work, "link"))
  commit = await sandbox.commit(work, {}, "content")
  await sandbox.git(["push", "-q", bare, "main"], { cwd: work })
})
afterAll(() => sandbox.dispose())

const repo = { id: 7, location: { owner: "ada", name: "repo" } }

const bytesOf = (stream: Stream.Stream<Uint8Array, unknown>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat([...chunks]))

const gitArchive = (format: string) =>
  new Promise<Buffer>((resolve, reject) =>
    execFile("git", ["archive", `--format=${format}`, "--prefix=repo/", commit], { cwd: work, encoding: "buffer", env: sandbox.env }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(error)))

it.effect("writes git's own archive bytes once and serves them again, whole or by range", () =>
  Effect.gen(function*() {
    const archives = yield* makeGitArchives(root, { cacheDir: sandbox.path("cache") })
    for (const format of ["zip", "tar.gz"] as const satisfies ReadonlyArray<ArchiveFormat>) {
      const first = yield* archives.archive(repo, commit, format, "repo")
      const bytes = yield* bytesOf(first.read())
      assert.strictEqual(bytes.length, first.size)
      assert.isTrue(bytes.equals(yield* Effect.promise(() => gitArchive(format))), format)
      const second = yield* archives.archive(repo, commit, format, "repo")
      assert.isTrue((yield* bytesOf(second.read({ start: 3, end: 9 }))).equals(bytes.subarray(3, 10)))
    }
    const cached = yield* Effect.promise(() => readdir(join(sandbox.path("cache"), "7")))
    assert.deepStrictEqual(cached.sort(), [`${commit}-repo.tar.gz`, `${commit}-repo.zip`])
  }))

it.effect("makes a bundle that git clones", () =>
  Effect.gen(function*() {
    const archives = yield* makeGitArchives(root, { cacheDir: sandbox.path("cache") })
    const bundle = yield* archives.archive(repo, commit, "bundle", "repo")
    const file = sandbox.path("repo.bundle")
    const bytes = yield* bytesOf(bundle.read())
    yield* Effect.promise(() => writeFile(file, bytes))
    yield* Effect.promise(() => sandbox.git(["clone", "-q", file, sandbox.path("from-bundle")]))
    assert.strictEqual((yield* Effect.promise(() => sandbox.git(["rev-parse", "HEAD"], { cwd: sandbox.path("from-bundle") }))).trim(), commit)
  }))

it.effect("refuses ids that are not full commit ids and unknown repositories", () =>
  Effect.gen(function*() {
    const archives = yield* makeGitArchives(root, { cacheDir: sandbox.path("cache") })
    const short = yield* Effect.flip(archives.archive(repo, commit.slice(0, 7), "zip", "repo"))
    assert.strictEqual(short._tag, "Invalid")
    const missing = yield* Effect.flip(archives.archive({ id: 8, location: { owner: "ada", name: "none" } }, commit, "zip", "none"))
    assert.strictEqual(missing._tag, "NotFound")
  }))

it.effect("resolves branches, tags and short ids with the git CLI, and nothing else", () =>
  Effect.gen(function*() {
    const archives = yield* makeGitArchives(root, { cacheDir: sandbox.path("cache") })
    const bare = join(root, "ada", "repo.git")
    yield* Effect.promise(() => sandbox.git(["--git-dir", bare, "tag", "-a", "-m", "t", "v1", commit]))
    for (const ref of ["main", "v1", commit, commit.slice(0, 7), "refs/heads/main"]) {
      assert.strictEqual((yield* archives.resolve({ owner: "ada", name: "repo" }, ref)).id, commit, ref)
    }
    for (const ref of ["nope", "--output=/tmp/x", "main..main", "HEAD~1", "main^{tree}"]) {
      assert.strictEqual((yield* Effect.flip(archives.resolve({ owner: "ada", name: "repo" }, ref)))._tag, "NotFound", ref)
    }
  }))

const listed = (dir: string) => readdir(dir).catch(() => [])

it.effect("forgets the archives of one repository, and makes them again when asked", () =>
  Effect.gen(function*() {
    const cacheDir = sandbox.path("discarded")
    const archives = yield* makeGitArchives(root, { cacheDir })
    const other = { ...repo, id: 9 }
    yield* archives.archive(repo, commit, "zip", "repo")
    yield* archives.archive(other, commit, "tar.gz", "repo")
    yield* archives.discard(repo.id)
    assert.deepStrictEqual((yield* Effect.promise(() => listed(cacheDir))).sort(), ["9"])
    // Nothing kept for it any more: also fine.
    yield* archives.discard(repo.id)
    const again = yield* archives.archive(repo, commit, "zip", "repo")
    assert.isTrue((yield* bytesOf(again.read())).equals(yield* Effect.promise(() => gitArchive("zip"))))
    assert.deepStrictEqual(yield* Effect.promise(() => listed(join(cacheDir, "7"))), [`${commit}-repo.zip`])
  }))

it.effect("keeps the cache within its bound by removing the archives used longest ago, never those in use", () =>
  Effect.gen(function*() {
    const cacheDir = sandbox.path("bounded")
    const size = (yield* Effect.promise(() => gitArchive("zip"))).length
    const archives = yield* makeGitArchives(root, { cacheDir, maxBytes: Math.floor(size * 2.6) })
    const fileOf = (id: number) => join(cacheDir, String(id), `${commit}-repo.zip`)
    const make = (id: number) => archives.archive({ ...repo, id }, commit, "zip", "repo")
    const lastUsed = (id: number, hoursAgo: number) => {
      const when = new Date(Date.now() - hoursAgo * 3_600_000)
      return Effect.promise(() => utimes(fileOf(id), when, when))
    }
    yield* make(1)
    yield* make(2)
    yield* lastUsed(1, 3)
    yield* lastUsed(2, 2)
    // Serving archive 1 again marks it used: archive 2 is now the one used longest ago.
    yield* make(1)
    yield* make(3)
    const present = (id: number) => Effect.promise(() => listed(join(cacheDir, String(id))).then((names) => names.length === 1))
    assert.deepStrictEqual([yield* present(1), yield* present(2), yield* present(3)], [true, false, true])
    // Past the bound again, but everything left was used within the last minute: nothing goes, and
    // the new archive is refused for now rather than pushing the cache past its bound.
    const refused = yield* Effect.flip(make(4))
    assert.strictEqual(refused._tag, "ArchiveCacheFull")
    assert.isTrue(refused._tag === "ArchiveCacheFull" && refused.transient)
    assert.deepStrictEqual([yield* present(1), yield* present(3), yield* present(4)], [true, true, false])
    assert.deepStrictEqual(yield* Effect.promise(() => listed(join(cacheDir, "4"))), [])
  }))

/** A repository whose archives are a few MiB of incompressible bytes, so that writing one takes a while. */
const bigRepository = async () => {
  const bare = join(root, "ada", "big.git")
  await sandbox.git(["init", "-q", "--bare", "-b", "main", bare])
  const tree = await sandbox.workTree("big-work")
  await writeFile(join(tree, "noise.bin"), randomBytes(3 * 1024 * 1024))
  const id = await sandbox.commit(tree, {}, "noise")
  await sandbox.git(["push", "-q", bare, "main"], { cwd: tree })
  return id
}

/** Bytes of every file under `directory`, archives being written included. */
const diskBytes = async (directory: string): Promise<number> => {
  let total = 0
  for (const entry of await readdir(directory, { withFileTypes: true }).catch(() => [])) {
    const path = join(directory, entry.name)
    total += entry.isDirectory() ? await diskBytes(path) : await stat(path).then((info) => info.size, () => 0)
  }
  return total
}

it.effect("holds the cache bound at every moment, archives being written included, and refuses one larger than the cache", () =>
  Effect.gen(function*() {
    const bigCommit = yield* Effect.promise(bigRepository)
    const cacheDir = sandbox.path("every-moment")
    const maxBytes = 8 * 1024 * 1024
    const archives = yield* makeGitArchives(root, { cacheDir, maxBytes, maxConcurrent: 4 })
    const big = (id: number) => archives.archive({ id, location: { owner: "ada", name: "big" } }, bigCommit, "zip", "big")
    let peak = 0
    let watching = true
    const watcher = (async () => {
      while (watching) {
        peak = Math.max(peak, await diskBytes(cacheDir))
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
    })()
    // Three archives of ~3 MiB each at once: they cannot all fit, and none is written past the bound.
    // Which ones are refused depends on how their reservations interleave: at least one, not all.
    const outcomes = yield* Effect.all([1, 2, 3].map((id) => Effect.result(big(id))), { concurrency: "unbounded" })
    watching = false
    yield* Effect.promise(() => watcher)
    assert.isAtMost(peak, maxBytes)
    assert.isAtMost(yield* Effect.promise(() => diskBytes(cacheDir)), maxBytes)
    const refused = outcomes.filter((outcome) => outcome._tag === "Failure")
    assert.isAtLeast(refused.length, 1)
    assert.isBelow(refused.length, outcomes.length)
    const larger = yield* Effect.flip(Effect.flatMap(
      makeGitArchives(root, { cacheDir: sandbox.path("too-small"), maxBytes: 1024 * 1024 }),
      (small) => small.archive({ id: 1, location: { owner: "ada", name: "big" } }, bigCommit, "tar.gz", "big")
    ))
    assert.isTrue(larger._tag === "ArchiveCacheFull" && !larger.transient)
    assert.strictEqual(yield* Effect.promise(() => diskBytes(sandbox.path("too-small"))), 0)
  }))

it.effect("makes at most maxConcurrent archives at once; the others wait their turn", () =>
  Effect.gen(function*() {
    const log = sandbox.path("archive-runs.log")
    // A real git behind a script that notes when each run starts and ends.
    const wrapper = sandbox.path("logging-git")
    yield* Effect.promise(async () => {
      await writeFile(wrapper, `#!/bin/sh\necho start >> '${log}'\nsleep 0.2\ngit "$@"\ncode=$?\necho end >> '${log}'\nexit $code\n`)
      await chmod(wrapper, 0o755)
    })
    const archives = yield* makeGitArchives(root, { cacheDir: sandbox.path("turns"), maxConcurrent: 2, gitBinary: wrapper })
    const made = yield* Effect.all([1, 2, 3, 4, 5].map((id) => archives.archive({ ...repo, id }, commit, "tar.gz", "repo")), { concurrency: "unbounded" })
    assert.strictEqual(made.length, 5)
    let running = 0
    let most = 0
    for (const line of (yield* Effect.promise(() => readFile(log, "utf8"))).split("\n")) {
      if (line === "start") most = Math.max(most, ++running)
      if (line === "end") running--
    }
    assert.strictEqual(most, 2)
  }))

/** A real git behind a script that notes in `log` when each run starts and ends, `delay` seconds in. */
const loggingGit = (name: string, delay: number) =>
  Effect.promise(async () => {
    const log = sandbox.path(`${name}.log`)
    const wrapper = sandbox.path(`${name}-git`)
    await writeFile(wrapper, `#!/bin/sh\necho start >> '${log}'\nsleep ${delay}\ngit "$@"\ncode=$?\necho end >> '${log}'\nexit $code\n`)
    await chmod(wrapper, 0o755)
    return { wrapper, starts: () => readFile(log, "utf8").then((text) => text.split("\n").filter((line) => line === "start").length, () => 0) }
  })

it.effect("refuses an archive at once when maxWaiting others wait for a turn (finding 29)", () =>
  Effect.gen(function*() {
    const git = yield* loggingGit("busy", 0.5)
    const archives = yield* makeGitArchives(root, { cacheDir: sandbox.path("busy"), maxConcurrent: 1, maxWaiting: 2, gitBinary: git.wrapper })
    // One made, two waiting: the other three are refused without waiting.
    const outcomes = yield* Effect.all(
      [1, 2, 3, 4, 5, 6].map((id) => Effect.result(archives.archive({ ...repo, id }, commit, "tar.gz", "repo"))),
      { concurrency: "unbounded" }
    )
    const refused = outcomes.flatMap((outcome) => outcome._tag === "Failure" ? [outcome.failure] : [])
    assert.strictEqual(refused.length, 3)
    for (const failure of refused) assert.isTrue(failure._tag === "ArchivesBusy" && failure.retryAfterSeconds > 0)
    assert.strictEqual(yield* Effect.promise(git.starts), 3)
  }))

it.live("an archive whose requests all went away while it waited is never made (finding 29)", () =>
  Effect.gen(function*() {
    const git = yield* loggingGit("abandoned", 0.5)
    const archives = yield* makeGitArchives(root, { cacheDir: sandbox.path("abandoned"), maxConcurrent: 1, gitBinary: git.wrapper })
    const make = (id: number) => archives.archive({ ...repo, id }, commit, "tar.gz", "repo")
    const first = yield* Effect.forkChild(make(1))
    yield* Effect.sleep("100 millis")
    // Queued behind the first, then interrupted (their clients disconnected), two requests for
    // the same archive among them.
    const leaving = yield* Effect.all([2, 3, 3].map((id) => Effect.forkChild(make(id))))
    yield* Effect.sleep("100 millis")
    yield* Effect.all(leaving.map(Fiber.interrupt))
    yield* Fiber.join(first)
    // One that still has a requester is made.
    const kept = yield* Effect.forkChild(make(4))
    const other = yield* Effect.forkChild(make(4))
    yield* Effect.sleep("50 millis")
    yield* Fiber.interrupt(other)
    yield* Fiber.join(kept)
    yield* Effect.sleep("700 millis")
    assert.strictEqual(yield* Effect.promise(git.starts), 2)
    const made = yield* Effect.promise(() => readdir(sandbox.path("abandoned")))
    assert.deepStrictEqual(made.sort(), ["1", "4"])
    // A later request for an abandoned one makes it.
    yield* make(3)
    assert.strictEqual(yield* Effect.promise(git.starts), 3)
  }))

it.effect("a pass over the disk bounds the cache whatever process added the archives", () =>
  Effect.gen(function*() {
    const cacheDir = sandbox.path("shared-cache")
    const size = (yield* Effect.promise(() => gitArchive("zip"))).length
    // Two processes on one data directory, neither counting the other's files.
    const first = yield* makeGitArchives(root, { cacheDir })
    const second = yield* makeGitArchives(root, { cacheDir })
    yield* first.archive({ ...repo, id: 21 }, commit, "zip", "repo")
    yield* second.archive({ ...repo, id: 22 }, commit, "zip", "repo")
    yield* second.archive({ ...repo, id: 23 }, commit, "zip", "repo")
    const when = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000)
    for (const [id, hoursAgo] of [[21, 2], [22, 3], [23, 1]] as const) {
      yield* Effect.promise(() => utimes(join(cacheDir, String(id), `${commit}-repo.zip`), when(hoursAgo), when(hoursAgo)))
    }
    // Within the bound: nothing goes.
    assert.strictEqual(yield* Effect.promise(() => pruneArchiveCache(cacheDir, size * 4)), size * 3)
    // Past it: those used longest ago go until 80% of it is reached.
    assert.strictEqual(yield* Effect.promise(() => pruneArchiveCache(cacheDir, Math.floor(size * 2.6))), size * 2)
    assert.deepStrictEqual((yield* Effect.promise(() => listed(cacheDir))).sort(), ["21", "22", "23"])
    assert.deepStrictEqual(yield* Effect.promise(() => listed(join(cacheDir, "22"))), [])
  }))

