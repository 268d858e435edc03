import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import * as fc from "fast-check"
import { readRef, readRefFiles } from "../src/RefFiles.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let commits: ReadonlyArray<string>
let work: string

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  const made = await sandbox.threeCommits("work")
  work = made.work
  commits = made.commits
})

afterAll(() => sandbox.dispose())

/** What a repository's refs go through: every way git writes, moves, packs or removes one. */
type Step =
  | { readonly kind: "branch"; readonly name: string; readonly commit: number }
  | { readonly kind: "annotated tag"; readonly name: string; readonly commit: number }
  | { readonly kind: "symbolic"; readonly name: string; readonly target: string }
  | { readonly kind: "delete"; readonly name: string }
  | { readonly kind: "pack" }

const refName = fc.constantFrom("refs/heads/main", "refs/heads/a/b", "refs/heads/a-b", "refs/heads/z", "refs/tags/v1", "refs/pull/1/head", "refs/heads/é")
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("branch" as const), name: refName, commit: fc.nat(2) }),
  fc.record({ kind: fc.constant("annotated tag" as const), name: fc.constantFrom("refs/tags/v1", "refs/tags/r/2"), commit: fc.nat(2) }),
  fc.record({ kind: fc.constant("symbolic" as const), name: fc.constantFrom("refs/remotes/origin/HEAD", "refs/heads/alias"), target: refName }),
  fc.record({ kind: fc.constant("delete" as const), name: refName }),
  fc.constant({ kind: "pack" as const })
)

let repositories = 0

describe("readRefFiles", () => {
  it("lists what git for-each-ref lists, loose, packed and symbolic refs alike", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 8 }), async (steps) => {
        const gitdir = sandbox.path(`repository-${repositories++}.git`)
        await sandbox.git(["clone", "-q", "--bare", work, gitdir])
        const git = (args: ReadonlyArray<string>) => sandbox.run(["--git-dir", gitdir, ...args])
        for (const s of steps) {
          // Steps git refuses (a ref under a name that is now a directory, say) leave the refs as they were.
          if (s.kind === "branch") await git(["update-ref", s.name, commits[s.commit] ?? ""])
          if (s.kind === "annotated tag") await git(["tag", "-f", "-a", "-m", "tag", s.name.slice("refs/tags/".length), commits[s.commit] ?? ""])
          if (s.kind === "symbolic") await git(["symbolic-ref", s.name, s.target])
          if (s.kind === "delete") await git(["update-ref", "-d", "--no-deref", s.name])
          if (s.kind === "pack") await git(["pack-refs", "--all"])
        }
        const listed = await sandbox.refs(gitdir)
        assert.deepStrictEqual(await readRefFiles(gitdir), listed)
        // One ref at a time: what for-each-ref gives for it, or nothing.
        for (const name of ["refs/heads/main", "refs/heads/a/b", "refs/heads/a", "refs/heads/a-b", "refs/heads/z", "refs/tags/v1", "refs/heads/alias", "refs/remotes/origin/HEAD"]) {
          assert.deepStrictEqual(readRef(gitdir, name), { id: listed.get(name) }, name)
        }
      }),
      { numRuns: 25 }
    )
  })

  it("skips refs being written and symbolic refs that lead nowhere", async () => {
    const gitdir = sandbox.path("locked.git")
    await sandbox.git(["clone", "-q", "--bare", work, gitdir])
    await writeFile(join(gitdir, "refs", "heads", "main.lock"), `${commits[0]}\n`)
    await mkdir(join(gitdir, "refs", "heads", "dangling"), { recursive: true })
    await writeFile(join(gitdir, "refs", "heads", "dangling", "link"), "ref: refs/heads/nowhere\n")
    const refs = await readRefFiles(gitdir)
    assert.deepStrictEqual(refs, await sandbox.refs(gitdir))
    assert.isFalse(refs?.has("refs/heads/main.lock"))
    assert.deepStrictEqual(readRef(gitdir, "refs/heads/dangling/link"), { id: undefined })
    assert.deepStrictEqual(readRef(gitdir, "refs/heads/main"), { id: refs?.get("refs/heads/main") })
  })
})

describe("readRefFiles with many loose refs", () => {
  it("reads them all, and lets other work run between batches of files", async () => {
    const gitdir = sandbox.path("many.git")
    await sandbox.git(["clone", "-q", "--bare", work, gitdir])
    await mkdir(join(gitdir, "refs", "tags", "many"), { recursive: true })
    for (let i = 0; i < 700; i++) await writeFile(join(gitdir, "refs", "tags", "many", `t${i}`), `${commits[i % 3]}\n`)
    let turns = 0
    const ticking = setInterval(() => turns++, 0)
    const refs = await readRefFiles(gitdir)
    clearInterval(ticking)
    assert.deepStrictEqual(refs, await sandbox.refs(gitdir))
    assert.strictEqual(refs?.size, 700 + 1)
    // 700 files read synchronously would give no timer a turn until the end.
    assert.isAtLeast(turns, 1)
  })
})
