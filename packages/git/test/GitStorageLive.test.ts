import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { utimesSync } from "node:fs"
import { mkdir, readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Option } from "effect"
import type { GitActor } from "@kiln/domain/git/CommitInfo"
import type { RepositoryLocation } from "@kiln/domain/git/GitStorage"
import { type GitStorageOptions, makeGitStorage } from "../src/GitStorageLive.ts"
import { owner } from "../src/ProcessWorkOwner.ts"
import { renderInitialFiles } from "../src/RepositoryTemplates.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let root: string
let storageOptions: GitStorageOptions = {}
beforeAll(async () => {
  sandbox = await GitSandbox.make()
})
afterAll(() => sandbox.dispose())

const git = (args: ReadonlyArray<string>, cwd?: string) =>
  Effect.promise(() => sandbox.git(args, cwd === undefined ? {} : { cwd }))
const storage = Effect.suspend(() => makeGitStorage(root, storageOptions))
const gitdir = (owner: string, name: string) => join(root, owner, `${name}.git`)
const exists = (path: string) => Effect.promise(() => readdir(path).then(() => true, () => false))

const ada: GitActor = { name: "Ada", email: "ada@example.com", when: { seconds: 1_700_000_000, offsetMinutes: 120 } }
const cy: GitActor = { name: "Cy", email: "cy@example.com", when: { seconds: 1_700_000_100, offsetMinutes: -330 } }
const armored = "-----BEGIN PGP SIGNATURE-----\n\nwsBcBAABCAAQBQJkAAAAAAkQAAAAAAAAAAAAAA==\n=abcd\n-----END PGP SIGNATURE-----\n"

/** A repository with an unsigned initial commit, then branches and tags pushed by the git CLI. */
const seeded = (location: RepositoryLocation) =>
  Effect.gen(function*() {
    const repos = yield* storage
    yield* repos.create(location, {
      defaultBranch: "main",
      initialCommit: {
        files: [{ path: "README.md", content: "# seed\n" }, { path: "docs/guide/intro.md", content: "intro\n" }],
        message: "Initial commit\n",
        author: ada,
        committer: cy
      }
    })
    const work = join(root, "..", `work-${root.split("/").pop() ?? ""}-${location.owner}-${location.name}`)
    const remote = gitdir(location.owner.toLowerCase(), location.name.toLowerCase())
    yield* git(["clone", "-q", remote, work])
    const second = yield* Effect.promise(() =>
      sandbox.commit(work, { "src/main.ts": "export {}\n" }, "Add main", {
        GIT_AUTHOR_DATE: "1700000200 +0200",
        GIT_COMMITTER_DATE: "1700000300 -0530"
      }))
    yield* git(["branch", "feature/x"], work)
    yield* git(["tag", "light"], work)
    yield* git(["tag", "-a", "-m", "release one", "v1"], work)
    yield* git(["push", "-q", "origin", "main", "feature/x", "light", "v1"], work)
    return { repos, work, second }
  })

// Every read runs both ways: through isomorphic-git's warm pack cache, and through `git cat-file`
// (a budget of 0 keeps no pack cache, as for repositories whose packs are past the budget).
const readers: ReadonlyArray<readonly [string, string, GitStorageOptions]> = [
  ["with the pack cache", "data", {}],
  ["through git cat-file", "data-cli", { packCacheMaxBytes: 0 }]
]

for (const [readerLabel, directory, options] of readers) describe(`GitStorageLive ${readerLabel}`, () => {
  beforeAll(() => {
    root = sandbox.path(directory)
    storageOptions = options
  })

  it.effect("creates an empty bare repository under lower-cased names", () =>
    Effect.gen(function*() {
      const repos = yield* storage
      const created = yield* repos.create({ owner: "Alice", name: "Empty" }, { defaultBranch: "trunk" })
      assert.isTrue(Option.isNone(created))
      const path = gitdir("alice", "empty")
      assert.strictEqual(yield* Effect.promise(() => readFile(join(path, "HEAD"), "utf8")), "ref: refs/heads/trunk\n")
      assert.strictEqual(yield* git(["--git-dir", path, "rev-parse", "--is-bare-repository"]), "true\n")
      yield* git(["--git-dir", path, "fsck", "--strict"])
      assert.deepStrictEqual(yield* repos.listBranches({ owner: "alice", name: "empty" }), [])
      assert.deepStrictEqual(yield* repos.branchNames({ owner: "alice", name: "empty" }), [])
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(join(root, "alice"))), ["empty.git"])
      const again = yield* Effect.flip(repos.create({ owner: "alice", name: "EMPTY" }, { defaultBranch: "main" }))
      assert.strictEqual(again._tag, "AlreadyExists")
    }))

  it.effect("creates a signed initial commit from the templates", () =>
    Effect.gen(function*() {
      const repos = yield* storage
      const files = yield* renderInitialFiles({
        owner: "bob", name: "Tools", description: "Handy tools", year: 2026,
        readme: "Default", gitignores: ["Node", "Go"], license: "MIT"
      })
      const payloads: Array<string> = []
      const created = yield* repos.create({ owner: "bob", name: "Tools" }, {
        defaultBranch: "main",
        initialCommit: {
          files, message: "Initial commit\n", author: ada, committer: cy,
          sign: (payload) => Effect.sync(() => {
            payloads.push(payload)
            return armored
          })
        }
      })
      const commit = Option.getOrThrow(created)
      const path = gitdir("bob", "tools")
      const raw = yield* git(["--git-dir", path, "cat-file", "-p", "main"])
      assert.include(raw, "gpgsig -----BEGIN PGP SIGNATURE-----")
      assert.include(raw, "author Ada <ada@example.com> 1700000000 +0200")
      assert.include(raw, "committer Cy <cy@example.com> 1700000100 -0530")
      // What was signed is the commit without its signature header, byte for byte.
      const unsigned = raw.replace(/^gpgsig [^\n]*\n(?: [^\n]*\n)*/m, "")
      assert.deepStrictEqual(payloads, [unsigned])
      assert.strictEqual(commit.id, (yield* git(["--git-dir", path, "rev-parse", "main"])).trim())
      assert.deepStrictEqual(commit.signature, Option.some(armored.trimEnd()))
      assert.deepStrictEqual(commit.parents, [])
      assert.deepStrictEqual(commit.author, ada)
      assert.deepStrictEqual(commit.committer, cy)
      yield* git(["--git-dir", path, "fsck", "--strict"])
      assert.strictEqual(yield* git(["--git-dir", path, "show", "main:README.md"]), "# Tools\n\nHandy tools")
      const gitignore = yield* git(["--git-dir", path, "show", "main:.gitignore"])
      assert.match(gitignore, /^# ---> Node\n[\s\S]*node_modules\/[\s\S]*\n# ---> Go\n/)
      assert.include(yield* git(["--git-dir", path, "show", "main:LICENSE"]), "Copyright (c) 2026 bob")
      assert.deepStrictEqual(yield* repos.commitInfo({ owner: "bob", name: "tools" }, commit.id), commit)
    }))

  it.effect("leaves nothing behind when a create fails", () =>
    Effect.gen(function*() {
      const repos = yield* storage
      const failed = yield* Effect.flip(repos.create({ owner: "carol", name: "broken" }, {
        defaultBranch: "main",
        initialCommit: {
          files: [{ path: "README.md", content: "x" }], message: "Initial commit\n", author: ada, committer: ada,
          sign: () => Effect.die(new Error("signing key unavailable"))
        }
      }))
      assert.strictEqual(failed._tag, "GitStorageFailure")
      assert.include(failed.message, "signing key unavailable")
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(join(root, "carol"))), [])

      const badBranch = yield* Effect.flip(repos.create({ owner: "carol", name: "x" }, { defaultBranch: "a..b" }))
      assert.strictEqual(badBranch._tag, "Invalid")
      const badPath = yield* Effect.flip(repos.create({ owner: "carol", name: "y" }, {
        defaultBranch: "main",
        initialCommit: { files: [{ path: "../escape", content: "x" }], message: "m\n", author: ada, committer: ada }
      }))
      assert.strictEqual(badPath._tag, "Invalid")
      const badName = yield* Effect.flip(repos.create({ owner: "carol", name: "../z" }, { defaultBranch: "main" }))
      assert.strictEqual(badName._tag, "Invalid")
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(join(root, "carol"))), [])
    }))

  it.effect("moves repositories and removes idempotently", () =>
    Effect.gen(function*() {
      const repos = yield* storage
      yield* repos.create({ owner: "dora", name: "one" }, { defaultBranch: "main" })
      yield* repos.create({ owner: "dora", name: "two" }, { defaultBranch: "main" })

      yield* repos.move({ owner: "dora", name: "one" }, { owner: "Dora", name: "One" }) // case only: same storage
      yield* repos.move({ owner: "dora", name: "one" }, { owner: "dora", name: "uno" })
      assert.isFalse(yield* exists(gitdir("dora", "one")))
      assert.isTrue(yield* exists(gitdir("dora", "uno")))
      assert.strictEqual((yield* Effect.flip(repos.move({ owner: "dora", name: "uno" }, { owner: "dora", name: "two" })))._tag, "AlreadyExists")
      assert.strictEqual((yield* Effect.flip(repos.move({ owner: "dora", name: "nope" }, { owner: "dora", name: "x" })))._tag, "NotFound")

      yield* repos.move({ owner: "dora", name: "uno" }, { owner: "erin", name: "uno" }) // transfer
      assert.isTrue(yield* exists(gitdir("erin", "uno")))

      yield* repos.remove({ owner: "dora", name: "two" })
      yield* repos.remove({ owner: "dora", name: "two" })
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(join(root, "dora"))), [])
      assert.strictEqual((yield* Effect.flip(repos.sizeInBytes({ owner: "dorothy", name: "two" })))._tag, "NotFound")
    }))

  it.effect("sweeps the staging and trash directories of processes that are gone, never a live process's", () =>
    Effect.gen(function*() {
      const repos = yield* storage
      yield* repos.create({ owner: "fay", name: "kept" }, { defaultBranch: "main" })
      // A pid that was alive and is gone now; and one that is alive (this test's parent).
      const deadPid = spawnSync(process.execPath, ["-e", ""]).pid ?? 0
      const live = [`busy.git.tmp-${owner.host}~${owner.scope}~${process.ppid}~0badc0de-0a1b2c`, `also.git.trash-${owner.host}~${owner.scope}~${process.ppid}~0badc0de-0a1b2c`]
      const gone = [
        `half.git.tmp-${owner.host}~${owner.scope}~${deadPid}~0badc0de-0a1b2c`,
        `gone.git.trash-${owner.host}~${owner.scope}~${process.pid}~0badc0de-3d4e5f`
      ]
      const recentElsewhere = `far.git.tmp-elsewhere~${deadPid}~0badc0de-0a1b2c`
      const oldUnowned = "old.git.tmp-0a1b2c"
      for (const leftover of [...live, ...gone, recentElsewhere, oldUnowned]) {
        yield* Effect.promise(() => mkdir(join(root, "fay", leftover, "objects"), { recursive: true }))
      }
      const longAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000)
      utimesSync(join(root, "fay", oldUnowned), longAgo, longAgo)
      yield* storage
      assert.deepStrictEqual(
        (yield* Effect.promise(() => readdir(join(root, "fay")))).sort(),
        ["kept.git", ...live, recentElsewhere].sort()
      )
    }))

  it.effect("measures size, lists branches, resolves refs and reads files after pushes", () =>
    Effect.gen(function*() {
      const location = { owner: "gus", name: "app" }
      const emptySize = yield* Effect.gen(function*() {
        const repos = yield* storage
        yield* repos.create({ owner: "gus", name: "blank" }, { defaultBranch: "main" })
        return yield* repos.sizeInBytes({ owner: "gus", name: "blank" })
      })
      const { repos, work, second } = yield* seeded(location)
      const size = yield* repos.sizeInBytes(location)
      const du = Number((yield* git(["--git-dir", gitdir("gus", "app"), "count-objects", "-v"])).match(/^size: (\d+)/m)?.[1])
      assert.isAbove(size, emptySize)
      assert.isAbove(size, du) // loose objects (KiB as count-objects rounds) plus refs, config, HEAD

      const branches = yield* repos.listBranches(location)
      assert.deepStrictEqual(branches.map((b) => [b.name, b.commit.id]), [["feature/x", second], ["main", second]])
      const head = branches[1]?.commit
      assert.deepStrictEqual(head?.message, "Add main\n")
      assert.deepStrictEqual(head?.author, { name: "Ada Author", email: "ada@example.com", when: { seconds: 1_700_000_200, offsetMinutes: 120 } })
      assert.deepStrictEqual(head?.committer, { name: "Cy Committer", email: "cy@example.com", when: { seconds: 1_700_000_300, offsetMinutes: -330 } })
      assert.isTrue(head !== undefined && Option.isNone(head.signature))
      const initial = (yield* git(["rev-parse", "HEAD~1"], work)).trim()
      assert.deepStrictEqual(head?.parents, [initial])

      for (const ref of ["main", "feature/x", "light", "v1", "refs/tags/v1", "HEAD", second, second.slice(0, 7), second.toUpperCase().slice(0, 12)]) {
        assert.strictEqual((yield* repos.resolveCommit(location, ref)).id, second, ref)
      }
      assert.strictEqual((yield* repos.resolveCommit(location, initial.slice(0, 8))).id, initial)
      for (const ref of ["nope", "feature", "0000000", "abc", "refs/heads/nope", "f".repeat(40), "../../config", "refs/heads/../../HEAD"]) {
        assert.strictEqual((yield* Effect.flip(repos.resolveCommit(location, ref)))._tag, "NotFound", ref)
      }
      // A branch's tip from the refs alone, loose or packed; tags, ids and names git refuses are no branch.
      for (const packed of [false, true]) {
        if (packed) yield* git(["--git-dir", gitdir("gus", "app"), "pack-refs", "--all"])
        assert.deepStrictEqual(yield* repos.branchTip(location, "main"), Option.some(second))
        assert.deepStrictEqual(yield* repos.branchTip(location, "feature/x"), Option.some(second))
        for (const name of ["nope", "feature", "light", "v1", second, "HEAD", "../../config", "a..b", ""]) {
          assert.deepStrictEqual(yield* repos.branchTip(location, name), Option.none(), name)
        }
        // Names and commits from the ref files, loose or packed (annotated tags peeled).
        assert.deepStrictEqual(yield* repos.branchNames(location), ["feature/x", "main"])
        for (const ref of ["main", "v1", "refs/tags/v1", "light", "HEAD"]) {
          assert.strictEqual((yield* repos.resolveCommit(location, ref)).id, second, `${ref}, packed: ${packed}`)
        }
      }
      // An annotated tag of a tree names no commit.
      const tree = (yield* git(["rev-parse", "HEAD^{tree}"], work)).trim()
      yield* git(["--git-dir", gitdir("gus", "app"), "-c", "user.name=T", "-c", "user.email=t@example.com", "tag", "-a", "-m", "a tree", "of-tree", tree])
      assert.strictEqual((yield* Effect.flip(repos.resolveCommit(location, "of-tree")))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(repos.branchTip({ owner: "gus", name: "missing" }, "main")))._tag, "NotFound")

      const text = (bytes: Option.Option<Uint8Array>) => Option.map(bytes, (b) => new TextDecoder().decode(b))
      assert.deepStrictEqual(text(yield* repos.readFile(location, second, "src/main.ts")), Option.some("export {}\n"))
      assert.deepStrictEqual(text(yield* repos.readFile(location, second, "docs/guide/intro.md")), Option.some("intro\n"))
      assert.deepStrictEqual(text(yield* repos.readFile(location, initial, "src/main.ts")), Option.none())
      assert.deepStrictEqual(yield* repos.readFile(location, second, "docs"), Option.none())
      assert.deepStrictEqual(yield* repos.readFile(location, second, "README.md/x"), Option.none())
      assert.strictEqual((yield* Effect.flip(repos.readFile(location, "1".repeat(40), "README.md")))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(repos.commitInfo(location, "1".repeat(40))))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(repos.commitInfo(location, "../../../HEAD")))._tag, "NotFound")
      assert.deepStrictEqual(yield* repos.readFile(location, second, "../config"), Option.none())
      // A size limit is checked before the file is read.
      assert.deepStrictEqual(text(yield* repos.readFile(location, second, "src/main.ts", 10)), Option.some("export {}\n"))
      const tooLarge = yield* Effect.flip(repos.readFile(location, second, "src/main.ts", 9))
      assert.deepStrictEqual([tooLarge._tag, "size" in tooLarge ? tooLarge.size : undefined], ["FileTooLarge", 10])
    }))

  it.effect("creates and deletes branches with git's compare-and-swap", () =>
    Effect.gen(function*() {
      const location = { owner: "hal", name: "lib" }
      const { repos, second } = yield* seeded(location)
      const path = gitdir("hal", "lib")
      const initial = (yield* repos.resolveCommit(location, "main")).parents[0] ?? ""

      yield* repos.createBranch(location, "release/1.x", initial)
      yield* repos.createBranch(location, "test-👀", second)
      const refs = yield* Effect.promise(() => sandbox.refs(path))
      assert.strictEqual(refs.get("refs/heads/release/1.x"), initial)
      assert.strictEqual(refs.get("refs/heads/test-👀"), second)
      assert.deepStrictEqual((yield* repos.listBranches(location)).map((b) => b.name), ["feature/x", "main", "release/1.x", "test-👀"])
      assert.deepStrictEqual(yield* repos.branchNames(location), ["feature/x", "main", "release/1.x", "test-👀"])

      const failure = (effect: Effect.Effect<void, { readonly _tag: string; readonly message: string }>) =>
        Effect.map(Effect.flip(effect), (e) => [e._tag, e.message])
      assert.deepStrictEqual(yield* failure(repos.createBranch(location, "main", second)), ["AlreadyExists", "The branch already exists."])
      assert.deepStrictEqual(yield* failure(repos.createBranch(location, "v1", second)), ["Conflict", "The branch with the same tag already exists."])
      assert.deepStrictEqual(yield* failure(repos.createBranch(location, "feature", second)), ["Conflict", "The branch with the same name already exists."])
      assert.deepStrictEqual(yield* failure(repos.createBranch(location, "main/sub", second)), ["Conflict", "The branch with the same name already exists."])
      assert.strictEqual((yield* Effect.flip(repos.createBranch(location, "x", "1".repeat(40))))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(repos.createBranch(location, "bad..name", second)))._tag, "Invalid")

      assert.strictEqual((yield* Effect.flip(repos.deleteBranch(location, "release/1.x", second)))._tag, "Conflict")
      yield* repos.deleteBranch(location, "release/1.x", initial)
      yield* repos.deleteBranch(location, "test-👀")
      assert.strictEqual((yield* Effect.flip(repos.deleteBranch(location, "release/1.x")))._tag, "NotFound")
      const after = yield* Effect.promise(() => sandbox.refs(path))
      assert.isFalse(after.has("refs/heads/release/1.x"))
      assert.isFalse(after.has("refs/heads/test-👀"))

      // A branch packed by `git pack-refs` is still seen and deleted.
      yield* git(["--git-dir", path, "pack-refs", "--all"])
      yield* repos.deleteBranch(location, "feature/x", second)
      assert.deepStrictEqual((yield* repos.listBranches(location)).map((b) => b.name), ["main"])
      assert.deepStrictEqual(yield* repos.branchNames(location), ["main"])

      yield* repos.setDefaultBranch(location, "develop")
      assert.strictEqual((yield* git(["--git-dir", path, "symbolic-ref", "HEAD"])).trim(), "refs/heads/develop")
    }))

  it.effect("names unknown templates as Forgejo does", () =>
    Effect.gen(function*() {
      const choice = { owner: "o", name: "n", description: "", year: 2026, readme: "Default", gitignores: [] }
      const readme = yield* Effect.flip(renderInitialFiles({ ...choice, readme: "Fancy" }))
      assert.strictEqual(readme.message, "readme template does not exist, available templates: [Default]")
      assert.strictEqual((yield* Effect.flip(renderInitialFiles({ ...choice, gitignores: ["Cobol"] }))).field, "gitignores")
      assert.strictEqual((yield* Effect.flip(renderInitialFiles({ ...choice, license: "WTFPL" }))).field, "license")
      const apache = yield* renderInitialFiles({ ...choice, license: "Apache-2.0", gitignores: ["Python"] })
      assert.deepStrictEqual(apache.map((f) => f.path), ["README.md", ".gitignore", "LICENSE"])
      assert.include(String(apache[2]?.content), "Copyright 2026 o")
    }))
})
