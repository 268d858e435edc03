import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { readdirSync, truncateSync } from "node:fs"
import { join } from "node:path"
import { gitReader } from "../src/ObjectReaders.ts"
import { readStoredCommit, readStoredObject } from "../src/StoredObjects.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let work: string
let tip: string
let tree: string

/** Commit messages alike enough for git to store most commits as deltas of each other. */
const message = (index: number) => `${"A commit message long enough to be stored as a delta. ".repeat(10)}${index}`

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  work = await sandbox.workTree("work")
  for (let index = 0; index < 12; index++) {
    tip = await sandbox.commit(work, { "lines.txt": `${Array.from({ length: 300 + index }, (_, line) => line).join("\n")}\n` }, message(index))
  }
  tree = (await sandbox.git(["rev-parse", "HEAD^{tree}"], { cwd: work })).trim()
  await sandbox.git(["tag", "-a", "-m", "annotated", "v1", tip], { cwd: work })
  await sandbox.git(["tag", "-a", "-m", "a tag of a tag", "v1-again", "v1"], { cwd: work })
  await sandbox.git(["tag", "-a", "-m", "a tag of a tree", "tree-tag", tree], { cwd: work })
})

afterAll(() => sandbox.dispose())

/** The content of object `id` of type `type`, as `git cat-file` reads it. */
const catFile = (gitdir: string, type: string, id: string) =>
  new Promise<Buffer>((resolve, reject) =>
    execFile("git", ["--git-dir", gitdir, "cat-file", type, id], { encoding: "buffer", env: sandbox.env }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(error)))

/** Every object of the repository at `gitdir` with its type and content, as git reads them. */
const objectsOf = async (gitdir: string) => {
  const listed = await sandbox.git(["--git-dir", gitdir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"])
  const objects: Array<{ readonly id: string; readonly type: string; readonly content: Buffer }> = []
  for (const line of listed.split("\n").filter((entry) => entry !== "")) {
    const [id = "", type = ""] = line.split(" ")
    objects.push({ id, type, content: await catFile(gitdir, type, id) })
  }
  return objects
}

/** The ids of the objects packs at `gitdir` store as deltas (`git verify-pack -v` names their base). */
const deltasIn = async (gitdir: string): Promise<ReadonlySet<string>> => {
  const deltas = new Set<string>()
  for (const index of readdirSync(join(gitdir, "objects", "pack")).filter((name) => name.endsWith(".idx"))) {
    const listing = await sandbox.git(["verify-pack", "-v", join(gitdir, "objects", "pack", index)])
    for (const line of listing.split("\n")) {
      const fields = line.split(/\s+/)
      if (/^[0-9a-f]{40}$/.test(fields[0] ?? "") && fields.length >= 7) deltas.add(fields[0] ?? "")
    }
  }
  return deltas
}

const bareCopy = async (name: string, ...after: ReadonlyArray<ReadonlyArray<string>>) => {
  const gitdir = sandbox.path(`${name}.git`)
  await sandbox.git(["clone", "-q", "--bare", "--no-local", work, gitdir])
  for (const args of after) await sandbox.git(["--git-dir", gitdir, ...args])
  return gitdir
}

describe("readStoredObject", () => {
  it("reads every loose object as git does", async () => {
    const gitdir = sandbox.path("loose.git")
    await sandbox.git(["init", "-q", "--bare", gitdir])
    // A push of fewer objects than the limit is kept as loose objects.
    await sandbox.git(["--git-dir", gitdir, "config", "receive.unpackLimit", "100000"])
    await sandbox.git(["push", "-q", gitdir, "--all", "--follow-tags"], { cwd: work })
    await sandbox.git(["push", "-q", gitdir, "--tags"], { cwd: work })
    assert.deepStrictEqual(readdirSync(join(gitdir, "objects", "pack")), [])
    const objects = await objectsOf(gitdir)
    for (const object of objects) {
      const read = readStoredObject(gitdir, object.id)
      assert.strictEqual(read?.type, object.type, object.id)
      assert.isTrue(read?.content.equals(object.content), object.id)
    }
  })

  it("reads every object a pack stores whole as git does, and leaves deltas to git", async () => {
    const gitdir = await bareCopy("packed", ["repack", "-a", "-d", "-f", "-q", "--window=250", "--depth=50"])
    const deltas = await deltasIn(gitdir)
    assert.isAbove(deltas.size, 0, "the repack stored some objects as deltas")
    const objects = await objectsOf(gitdir)
    for (const object of objects) {
      const read = readStoredObject(gitdir, object.id)
      if (deltas.has(object.id)) {
        assert.isUndefined(read, object.id)
        continue
      }
      assert.strictEqual(read?.type, object.type, object.id)
      assert.isTrue(read?.content.equals(object.content), object.id)
    }
    assert.isUndefined(readStoredObject(gitdir, "0".repeat(40)), "an object the repository lacks")
    assert.isUndefined(readStoredObject(gitdir, "not an id"))
  })

  it("leaves a truncated pack to git instead of failing", async () => {
    const gitdir = await bareCopy("truncated", ["repack", "-a", "-d", "-q"])
    const pack = readdirSync(join(gitdir, "objects", "pack")).find((name) => name.endsWith(".pack")) ?? ""
    truncateSync(join(gitdir, "objects", "pack", pack), 40)
    assert.isUndefined(readStoredObject(gitdir, tip))
  })
})

describe("readStoredCommit", () => {
  it("follows annotated tags to their commit, and tells a tag of a tree from a missing object", async () => {
    const gitdir = await bareCopy("tags", ["repack", "-a", "-d", "-q"])
    const id = async (name: string) => (await sandbox.git(["--git-dir", gitdir, "rev-parse", name])).trim()
    const commit = readStoredCommit(gitdir, tip)
    assert.isTrue(typeof commit === "object" && commit.content.equals(await catFile(gitdir, "commit", tip)))
    for (const tag of ["v1", "v1-again"]) {
      const found = readStoredCommit(gitdir, await id(`refs/tags/${tag}`))
      assert.strictEqual(typeof found === "object" ? found.id : found, tip, tag)
    }
    assert.strictEqual(readStoredCommit(gitdir, await id("refs/tags/tree-tag")), "not a commit")
    assert.strictEqual(readStoredCommit(gitdir, tree), "not a commit")
  })
})

describe("gitReader", () => {
  it("reads commits stored whole without starting git, and asks git for the rest", async () => {
    const gitdir = await bareCopy("reader", ["repack", "-a", "-d", "-f", "-q", "--window=250", "--depth=50"])
    const deltas = await deltasIn(gitdir)
    const history = (await sandbox.git(["--git-dir", gitdir, "rev-list", "main"])).trim().split("\n")
    const stored = history.filter((commit) => !deltas.has(commit))
    const delta = history.find((commit) => deltas.has(commit))
    assert.include(stored, tip, "the tip is stored whole")
    assert.isDefined(delta, "some commit is stored as a delta")

    // A git that cannot start: what the files hold is read without it.
    const noGit = gitReader({ gitBinary: sandbox.path("no-such-git") }, gitdir)
    const names = ["refs/heads/main", "refs/tags/v1-again", "HEAD", ...stored]
    const read = await noGit.commits(names)
    assert.deepStrictEqual(read.map((commit) => commit?.id), [tip, tip, tip, ...stored])
    assert.strictEqual(read[0]?.message, `${message(11)}\n`)
    assert.strictEqual(read[0]?.author.name, "Ada Author")
    assert.deepStrictEqual((await noGit.commits(["refs/tags/tree-tag", tree])).map((commit) => commit?.id), [undefined, undefined])
    assert.isTrue(Buffer.from((await noGit.rawCommit(tip)) ?? []).toString("utf8").startsWith(`tree ${tree}\n`))

    // Deltas and names the files do not hold go to git, in order among the rest.
    const withGit = gitReader({ gitBinary: "git" }, gitdir)
    const mixed = await withGit.commits([tip, delta ?? "", "refs/heads/missing", "main"])
    assert.deepStrictEqual(mixed.map((commit) => commit?.id), [tip, delta, undefined, tip])
    const raw = Buffer.from((await withGit.rawCommit(delta ?? "")) ?? [])
    assert.isTrue(raw.equals(await catFile(gitdir, "commit", delta ?? "")))
  })
})
