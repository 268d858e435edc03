import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { once } from "node:events"
import { readFileSync } from "node:fs"
import { gitEnvironment } from "../src/GitEnvironment.ts"
import {
  type GitProcess,
  gitStarter,
  type LauncherProgram,
  nodeLauncher,
  perlLauncher,
  pythonLauncher,
  type StartGit
} from "../src/launcher/GitLauncher.ts"
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

const childPids = () =>
  readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").split(" ").filter((pid) => pid.trim() !== "")

/** The command lines of this process's children, each argument ended by a NUL. */
const childCommandLines = () => childPids().map((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8"))

/** Starts cat-file (which waits for input) with `startGit` and returns the programs running beside it as this process's children. */
const childrenWhileGitRuns = async (startGit: StartGit) => {
  const git = await startGit("git", ["--git-dir", gitdir, "cat-file", "--batch"], gitEnvironment())
  await once(git, "spawn")
  const children = childCommandLines()
  const closed = once(git, "close")
  git.stdin.end()
  await closed
  return children
}

/** Each launcher, and how its command line reads (python3 may be a shim, such as pyenv's, that runs another path). */
const launchers: ReadonlyArray<readonly [string, LauncherProgram, (commandLine: string) => boolean]> = [
  ["Python", pythonLauncher, (line) => line.includes("\0-I\0-S\0") && line.includes("GitLauncherProcess.py\0")],
  ["Perl", perlLauncher, (line) => line.startsWith("perl\0") && line.includes("GitLauncherProcess")],
  ["Node", nodeLauncher, (line) => line.startsWith(`${process.execPath}\0`) && line.includes("GitLauncherProcess")]
]

describe.each(launchers)("GitLauncher in %s", (_, program, isLauncher) => {
  const startGit = gitStarter([program])

  it("starts git from the launcher, not from this process", async () => {
    const children = await childrenWhileGitRuns(startGit)
    assert.deepStrictEqual(children.filter((line) => line.startsWith("git")), [], "git is a child of this process")
    assert.isTrue(children.some(isLauncher), children.join(" | "))
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

  it("ends the output of a process that exits leaving its input unread", async () => {
    // The kernel resets a Unix connection closed with unread data in it: the output must end anyway
    // (upload-pack refusing a `want` exits before it reads the rest of the request).
    const git = await startGit("sh", ["-c", "sleep 0.2; printf 'refused'; exit 128"], gitEnvironment())
    const run = await collect(git, Buffer.alloc(4096, "want\n"))
    assert.strictEqual(run.code, 128)
    assert.strictEqual(run.stdout.toString("utf8"), "refused")
  }, 10_000)

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

  it("reports a git whose launcher died as ended, and starts a new launcher for the next", async () => {
    const startOwn = gitStarter([program])
    const before = new Set(childPids())
    const waiting = await startOwn("git", ["--git-dir", gitdir, "cat-file", "--batch"], gitEnvironment())
    await once(waiting, "spawn")
    const launcherPid = childPids().find((pid) => !before.has(pid))
    assert.isDefined(launcherPid)
    const closed = once(waiting, "close") as Promise<[number | null, NodeJS.Signals | null]>
    process.kill(Number(launcherPid), "SIGKILL")
    assert.deepStrictEqual(await closed, [null, null])
    // The orphaned git ends with its input.
    waiting.stdin.destroy()
    const next = await collect(await startOwn("git", ["--version"], gitEnvironment()))
    assert.strictEqual(next.code, 0)
    assert.match(next.stdout.toString("utf8"), /^git version /)
  })

  it("keeps git's stderr up to 64 KiB, and passes arguments and environment as given", async () => {
    const noisy = await startGit("sh", ["-c", "head -c 100000 /dev/zero | tr '\\0' x >&2; exit 3"], gitEnvironment())
    const ended = await collect(noisy)
    assert.strictEqual(ended.code, 3)
    assert.strictEqual(ended.stderr, "x".repeat(64 * 1024))
    const echoed = await collect(await startGit("sh", ["-c", "printf '%s|%s|%s' \"$1\" \"$KILN_VALUE\" \"$HOME\"", "sh", "an argument\nwith ünïcode="], { KILN_VALUE: "a=b c" }))
    assert.strictEqual(echoed.stdout.toString("utf8"), "an argument\nwith ünïcode=|a=b c|")
  })
})

describe("GitLauncher's choice", () => {
  it("falls back to the Node launcher when the Perl one cannot start", async () => {
    const missingPerl: LauncherProgram = { command: "/nonexistent/perl", args: perlLauncher.args }
    const children = await childrenWhileGitRuns(gitStarter([missingPerl, nodeLauncher]))
    assert.isTrue(children.some((line) => line.startsWith(`${process.execPath}\0`) && line.includes("GitLauncherProcess")))
  })

  it("starts git directly when no launcher starts", async () => {
    const children = await childrenWhileGitRuns(gitStarter([{ command: "/nonexistent/perl", args: [] }]))
    assert.isTrue(children.some((line) => line.startsWith("git")))
  })
})
