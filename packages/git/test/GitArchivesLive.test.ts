import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdir, symlink, chmod, writeFile, readdir } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Stream } from "effect"
import type { ArchiveFormat } from "@kiln/domain/git/GitArchives"
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
      const first = yield* archives.archive({ owner: "ada", name: "repo" }, commit, format, "repo")
      const bytes = yield* bytesOf(first.read())
      assert.strictEqual(bytes.length, first.size)
      assert.isTrue(bytes.equals(yield* Effect.promise(() => gitArchive(format))), format)
      const second = yield* archives.archive({ owner: "ada", name: "repo" }, commit, format, "repo")
      assert.isTrue((yield* bytesOf(second.read({ start: 3, end: 9 }))).equals(bytes.subarray(3, 10)))
    }
    const cached = yield* Effect.promise(() => readdir(join(sandbox.path("cache"), commit.slice(0, 2))))
    assert.deepStrictEqual(cached.sort(), [`${commit}-repo.tar.gz`, `${commit}-repo.zip`])
  }))

it.effect("makes a bundle that git clones", () =>
  Effect.gen(function*() {
    const archives = yield* makeGitArchives(root, { cacheDir: sandbox.path("cache") })
    const bundle = yield* archives.archive({ owner: "ada", name: "repo" }, commit, "bundle", "repo")
    const file = sandbox.path("repo.bundle")
    const bytes = yield* bytesOf(bundle.read())
    yield* Effect.promise(() => writeFile(file, bytes))
    yield* Effect.promise(() => sandbox.git(["clone", "-q", file, sandbox.path("from-bundle")]))
    assert.strictEqual((yield* Effect.promise(() => sandbox.git(["rev-parse", "HEAD"], { cwd: sandbox.path("from-bundle") }))).trim(), commit)
  }))

it.effect("refuses ids that are not full commit ids and unknown repositories", () =>
  Effect.gen(function*() {
    const archives = yield* makeGitArchives(root, { cacheDir: sandbox.path("cache") })
    const short = yield* Effect.flip(archives.archive({ owner: "ada", name: "repo" }, commit.slice(0, 7), "zip", "repo"))
    assert.strictEqual(short._tag, "Invalid")
    const missing = yield* Effect.flip(archives.archive({ owner: "ada", name: "none" }, commit, "zip", "none"))
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
