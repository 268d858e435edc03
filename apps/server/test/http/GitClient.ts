/**
 * The stock git CLI in an isolated environment (temporary HOME, no system config, no prompts, fixed
 * identity) for tests that clone from and push to the Kiln server over its socket.
 */
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Effect } from "effect"

export interface GitResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface GitClient {
  readonly directory: string
  readonly env: Readonly<Record<string, string>>
  /** Runs git; the exit code is in the result, so tests can assert failures. */
  readonly run: (args: ReadonlyArray<string>, options?: { cwd?: string; env?: Record<string, string> }) => Effect.Effect<GitResult>
  /** Runs git and dies with git's stderr when it fails. */
  readonly git: (args: ReadonlyArray<string>, options?: { cwd?: string; env?: Record<string, string> }) => Effect.Effect<string>
  /** Writes files and commits them in `dir`; the new commit id. */
  readonly commit: (dir: string, files: Readonly<Record<string, string>>, message: string) => Effect.Effect<string>
  /** `refname -> objectname` of a repository (work tree or bare). */
  readonly refs: (dir: string) => Effect.Effect<ReadonlyMap<string, string>>
  readonly path: (...segments: ReadonlyArray<string>) => string
}

/** A git sandbox removed with the scope. */
export const makeGitClient = Effect.acquireRelease(
  Effect.promise(async () => {
    const directory = await mkdtemp(join(tmpdir(), "kiln-git-client-"))
    await mkdir(join(directory, "home"), { recursive: true })
    return directory
  }),
  (directory) => Effect.promise(() => rm(directory, { recursive: true, force: true }))
).pipe(Effect.map((directory): GitClient => {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("GIT_"))
  )
  const env: Record<string, string> = {
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
  const run: GitClient["run"] = (args, options = {}) =>
    Effect.promise(() =>
      new Promise<GitResult>((resolve) => {
        execFile("git", [...args], {
          cwd: options.cwd ?? directory,
          env: { ...env, ...options.env },
          maxBuffer: 256 * 1024 * 1024
        }, (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
          resolve({ code, stdout, stderr })
        })
      })
    )
  const git: GitClient["git"] = (args, options) =>
    Effect.flatMap(run(args, options), (result) =>
      result.code === 0
        ? Effect.succeed(result.stdout)
        : Effect.die(new Error(`git ${args.join(" ")} failed (${result.code}): ${result.stderr}`)))
  return {
    directory,
    env,
    run,
    git,
    path: (...segments) => join(directory, ...segments),
    commit: (dir, files, message) =>
      Effect.gen(function*() {
        for (const [path, content] of Object.entries(files)) {
          yield* Effect.promise(async () => {
            await mkdir(dirname(join(dir, path)), { recursive: true })
            await writeFile(join(dir, path), content)
          })
        }
        yield* git(["add", "-A"], { cwd: dir })
        yield* git(["commit", "-q", "-m", message], { cwd: dir })
        return (yield* git(["rev-parse", "HEAD"], { cwd: dir })).trim()
      }),
    refs: (dir) =>
      Effect.map(git(["for-each-ref", "--format=%(refname) %(objectname)"], { cwd: dir }), (out) =>
        new Map(out.split("\n").filter((line) => line !== "").map((line) => {
          const [ref = "", id = ""] = line.split(" ")
          return [ref, id] as const
        })))
  }
}))

/** `http://user:secret@127.0.0.1:port/owner/repo.git`. */
export const cloneUrl = (base: string, owner: string, repo: string, credentials?: { readonly username: string; readonly password: string }) => {
  const url = new URL(`${base}/${owner}/${repo}.git`)
  if (credentials !== undefined) {
    url.username = encodeURIComponent(credentials.username)
    url.password = encodeURIComponent(credentials.password)
  }
  return url.toString()
}
