/**
 * The stock git CLI in an isolated environment (temporary HOME, no system config, fixed identity)
 * for tests that make commits, push and clone against real repositories.
 */
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

export interface GitResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export class GitSandbox {
  readonly directory: string
  readonly env: Record<string, string>

  private constructor(directory: string) {
    this.directory = directory
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("GIT_"))
    )
    this.env = {
      ...inherited,
      HOME: join(directory, "home"),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_AUTHOR_NAME: "Ada Author",
      GIT_AUTHOR_EMAIL: "ada@example.com",
      GIT_COMMITTER_NAME: "Cy Committer",
      GIT_COMMITTER_EMAIL: "cy@example.com",
      LC_ALL: "C"
    }
  }

  static async make(): Promise<GitSandbox> {
    const sandbox = new GitSandbox(await mkdtemp(join(tmpdir(), "kiln-git-")))
    await mkdir(sandbox.env.HOME ?? join(sandbox.directory, "home"), { recursive: true })
    return sandbox
  }

  path(...segments: ReadonlyArray<string>): string {
    return join(this.directory, ...segments)
  }

  /** Runs git; resolves with the exit code instead of rejecting, so tests can assert failures. */
  run(args: ReadonlyArray<string>, options: { cwd?: string; env?: Record<string, string> } = {}): Promise<GitResult> {
    return new Promise((resolve) => {
      execFile("git", [...args], {
        cwd: options.cwd ?? this.directory,
        env: { ...this.env, ...options.env },
        maxBuffer: 64 * 1024 * 1024
      }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resolve({ code, stdout, stderr })
      })
    })
  }

  /** Runs git and fails the test with git's stderr when it does not succeed. */
  async git(args: ReadonlyArray<string>, options: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
    const result = await this.run(args, options)
    if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed (${result.code}): ${result.stderr}`)
    return result.stdout
  }

  /** A fresh working repository on `branch`. */
  async workTree(name: string, branch = "main"): Promise<string> {
    const dir = this.path(name)
    await this.git(["init", "-q", "-b", branch, dir])
    return dir
  }

  /** Writes files and commits them; returns the new commit id. */
  async commit(dir: string, files: Readonly<Record<string, string>>, message: string, env: Record<string, string> = {}): Promise<string> {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true })
      await writeFile(join(dir, path), content)
    }
    await this.git(["add", "-A"], { cwd: dir })
    await this.git(["commit", "-q", "-m", message], { cwd: dir, env })
    return (await this.git(["rev-parse", "HEAD"], { cwd: dir })).trim()
  }

  /** `refname -> objectname` of a repository, as for-each-ref sees it. */
  async refs(gitdir: string): Promise<Map<string, string>> {
    const out = await this.git(["--git-dir", gitdir, "for-each-ref", "--format=%(refname) %(objectname)"])
    return new Map(out.split("\n").filter((l) => l !== "").map((l) => {
      const [ref = "", id = ""] = l.split(" ")
      return [ref, id]
    }))
  }

  /** A git executable for a handler under test that notes each process started, and how many were. */
  async countingGit(): Promise<{ readonly binary: string; readonly started: () => number }> {
    const log = this.path("started.log")
    await writeFile(log, "")
    const binary = this.path("git-wrapper")
    await writeFile(binary, `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nexec git "$@"\n`, { mode: 0o755 })
    return { binary, started: () => readFileSync(log, "utf8").split("\n").filter((line) => line !== "").length }
  }

  /** Three commits of `file.txt` in a fresh work tree `name`, oldest first. */
  async threeCommits(name: string): Promise<{ readonly work: string; readonly commits: ReadonlyArray<string> }> {
    const work = await this.workTree(name)
    const commits: Array<string> = []
    for (let i = 0; i < 3; i++) commits.push(await this.commit(work, { "file.txt": `${i}\n` }, `commit ${i}`))
    return { work, commits }
  }

  dispose(): Promise<void> {
    return rm(this.directory, { recursive: true, force: true })
  }
}
