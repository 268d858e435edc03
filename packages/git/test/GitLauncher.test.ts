import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { once } from "node:events"
import { readFileSync } from "node:fs"
import { gitEnvironment } from "../src/GitEnvironment.ts"
import { type GitProcess, startGit } from "../src/launcher/GitLauncher.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let gitdir: string

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  gitdir = sandbox.path("repository.git")
  await sandbox.git(["init", "-q", "--bare", gitdir])
})

afterAll(() => sandbox.dispose())

const collect = async (git: GitProcess, input?: Buffer) => {
  const stdout: Array<Buffer> = []
  const stderr: Array<Buffer> = []
  git.stdout.on("data", (chunk: Buffer) => stdout.push(chunk))
  git.stderr.on("data", (chunk: Buffer) => stderr.push(chunk))
  const closed = once(git, "close") as Promise<[number | null, NodeJS.Signals | null]>
  await once(git, "spawn")
  git.stdin.end(input)
  const [code, signal] = await closed
  return { code, signal, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString("utf8") }
}

describe("GitLauncher", () => {
  it("starts git from the launcher, not from this process", async () => {
    // cat-file waits for input: its process stands still while this process's children are listed.
    const git = await startGit("git", ["--git-dir", gitdir, "cat-file", "--batch"], gitEnvironment())
    await once(git, "spawn")
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").split(" ").filter((pid) => pid.trim() !== "")
    const gits = children.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("git"))
    assert.deepStrictEqual(gits, [], "git is a child of this process")
    const closed = once(git, "close")
    git.stdin.end()
    await closed
  })

  it("passes input and output through whole, with git's exit code and stderr", async () => {
    const content = Buffer.alloc(3 * 1024 * 1024, "kiln\n")
    const written = await collect(await startGit("git", ["--git-dir", gitdir, "hash-object", "-w", "--stdin"], gitEnvironment()), content)
    assert.strictEqual(written.code, 0)
    const id = written.stdout.toString("utf8").trim()
    const read = await collect(await startGit("git", ["--git-dir", gitdir, "cat-file", "blob", id], gitEnvironment()))
    assert.strictEqual(read.code, 0)
    assert.isTrue(read.stdout.equals(content))
    const missing = await collect(await startGit("git", ["--git-dir", gitdir, "cat-file", "blob", "0".repeat(40)], gitEnvironment()))
    assert.strictEqual(missing.code, 128)
    assert.include(missing.stderr, "fatal")
  })

  it("keeps the output of a git that exits before its connection is taken", async () => {
    // `git --version` exits at once: while this process is busy, its exit and its connection both
    // wait, and the exit can be taken first.
    const runs = await Promise.all(Array.from({ length: 20 }, async () => {
      const git = await startGit("git", ["--version"], gitEnvironment())
      const busyUntil = performance.now() + 30
      while (performance.now() < busyUntil) {
        // Busy, as a loaded server is.
      }
      return collect(git)
    }))
    for (const run of runs) {
      assert.strictEqual(run.code, 0)
      assert.match(run.stdout.toString("utf8"), /^git version /)
    }
  })

  it("kills a process that waits, and reports a program that cannot start", async () => {
    const waiting = await startGit("git", ["--git-dir", gitdir, "cat-file", "--batch"], gitEnvironment())
    const closed = once(waiting, "close") as Promise<[number | null, NodeJS.Signals | null]>
    await once(waiting, "spawn")
    waiting.kill("SIGKILL")
    // Its input is still open: the kill alone ends it.
    const [code, signal] = await closed
    assert.strictEqual(code, null)
    assert.strictEqual(signal, "SIGKILL")
    waiting.stdin.destroy()

    const absent = await startGit("/nonexistent/git", [], gitEnvironment())
    const [error] = await once(absent, "error") as [Error]
    assert.include(error.message, "ENOENT")
  })
})
