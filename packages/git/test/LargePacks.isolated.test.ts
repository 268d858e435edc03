import { afterAll, assert, beforeAll, it, vi } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { promises as fsPromises } from "node:fs"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import type { GitActor } from "@kiln/domain/git/CommitInfo"
import { makeGitStorage } from "../src/GitStorageLive.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let root: string
const location = { owner: "ada", name: "big" }
const ada: GitActor = { name: "Ada", email: "ada@example.com", when: { seconds: 1_700_000_000, offsetMinutes: 120 } }
const armored = "-----BEGIN PGP SIGNATURE-----\n\nwsBcBAABCAAQBQJkAAAAAAkQAAAAAAAAAAAAAA==\n=abcd\n-----END PGP SIGNATURE-----\n"
const PACK_MIB = 24

/** A repository whose one pack is PACK_MIB of incompressible bytes, with a signed first commit, branches and tags. */
beforeAll(async () => {
  sandbox = await GitSandbox.make()
  root = sandbox.path("data")
  await Effect.runPromise(Effect.gen(function*() {
    const storage = yield* makeGitStorage(root)
    yield* storage.create(location, {
      defaultBranch: "main",
      initialCommit: {
        files: [{ path: "README.md", content: "# big\n" }],
        message: "Initial commit\n",
        author: ada,
        committer: { ...ada, when: { seconds: 1_700_000_100, offsetMinutes: -330 } },
        sign: () => Effect.succeed(armored)
      }
    })
  }))
  const remote = join(root, "ada", "big.git")
  const work = sandbox.path("work")
  await sandbox.git(["clone", "-q", remote, work])
  await writeFile(join(work, "noise.bin"), randomBytes(PACK_MIB * 1024 * 1024))
  await sandbox.commit(work, {}, "Add noise", { GIT_AUTHOR_DATE: "1700000200 +0200", GIT_COMMITTER_DATE: "1700000300 -0000" })
  await sandbox.git(["branch", "topic/one"], { cwd: work })
  await sandbox.git(["tag", "-a", "-m", "release", "v1"], { cwd: work })
  await sandbox.git(["push", "-q", "origin", "main", "topic/one", "v1"], { cwd: work })
  await sandbox.git(["--git-dir", remote, "repack", "-a", "-d", "-q"])
}, 120_000)
afterAll(() => sandbox.dispose())

/** Everything GitStorage reads from commits, in one value. */
const readAll = (packCacheMaxBytes: number) =>
  Effect.gen(function*() {
    const storage = yield* makeGitStorage(root, { packCacheMaxBytes })
    const branches = yield* storage.listBranches(location)
    const main = yield* storage.resolveCommit(location, "main")
    const initialId = main.parents[0] ?? ""
    return {
      branches,
      main,
      tag: yield* storage.resolveCommit(location, "v1"),
      short: yield* storage.resolveCommit(location, main.id.slice(0, 8)),
      initial: yield* storage.commitInfo(location, initialId),
      raw: yield* storage.rawCommit(location, initialId),
      missing: (yield* Effect.flip(storage.resolveCommit(location, "nope")))._tag
    }
  })

it.effect("serves branches and commits of a repository whose pack is past the cache budget without loading the pack", () =>
  Effect.gen(function*() {
    const before = process.memoryUsage().arrayBuffers
    const throughGit = yield* readAll(4 * 1024 * 1024)
    const grown = process.memoryUsage().arrayBuffers - before
    // isomorphic-git would hold the whole pack (PACK_MIB) in memory; git cat-file reads only the commits.
    assert.isBelow(grown, (PACK_MIB / 2) * 1024 * 1024)
    assert.deepStrictEqual(throughGit.branches.map((branch) => branch.name), ["main", "topic/one"])
    assert.strictEqual(throughGit.tag.id, throughGit.main.id)
    assert.strictEqual(throughGit.short.id, throughGit.main.id)
    assert.strictEqual(throughGit.missing, "NotFound")
    assert.include(throughGit.raw, "gpgsig -----BEGIN PGP SIGNATURE-----")

    // The same answers as through the warm pack cache, signature and time zones included.
    const throughCache = yield* readAll(256 * 1024 * 1024)
    assert.deepStrictEqual(throughGit, throughCache)
  }), { timeout: 60_000 })

/** Counts isomorphic-git's whole-pack loads (one readFile per pack) while the scope is open. */
const packLoads = Effect.map(
  Effect.acquireRelease(
    Effect.sync(() => vi.spyOn(fsPromises, "readFile")),
    (spy) => Effect.sync(() => spy.mockRestore())
  ),
  (spy) => () => spy.mock.calls.filter(([path]) => String(path).endsWith(".pack")).length
)

it.effect("reads a pack its cache has not seen through git, leaving the load to the next read (a push's follow-up reads a commit or two of it)", () =>
  Effect.gen(function*() {
    const storage = yield* makeGitStorage(root, { packCacheMaxBytes: 256 * 1024 * 1024 })
    const loads = yield* packLoads
    const first = yield* storage.resolveCommit(location, "main")
    assert.strictEqual(loads(), 0)
    const second = yield* storage.resolveCommit(location, "main")
    assert.strictEqual(loads(), 1)
    assert.deepStrictEqual(first, second)
    yield* storage.resolveCommit(location, "topic/one")
    assert.strictEqual(loads(), 1)
  }).pipe(Effect.scoped), { timeout: 60_000 })

// That a cache being loaded counts against the budget (the reservation) is PackCaches.test.ts's: here
// the twin, never read before, would go through git anyway.
it.effect("concurrent reads of two repositories load one pack at most when the budget holds one", () =>
  Effect.gen(function*() {
    const twin = { owner: "ada", name: "twin" }
    yield* Effect.promise(() => sandbox.git(["clone", "-q", "--bare", join(root, "ada", "big.git"), join(root, "ada", "twin.git")]))
    // Room for one of the two packs (PACK_MIB each), not both.
    const storage = yield* makeGitStorage(root, { packCacheMaxBytes: (PACK_MIB * 3 / 2) * 1024 * 1024 })
    // Seen once (that read goes through git): the next read of it loads its pack.
    yield* storage.listBranches(location)
    const loads = yield* packLoads
    const [big, other] = yield* Effect.all([storage.listBranches(location), storage.listBranches(twin)], { concurrency: "unbounded" })
    assert.deepStrictEqual(other, big)
    assert.deepStrictEqual(big.map((branch) => branch.name), ["main", "topic/one"])
    assert.strictEqual(loads(), 1)
  }).pipe(Effect.scoped), { timeout: 60_000 })
