/** Runs a short git command against a bare repository and collects its (small) output. */
import { gitEnvironment } from "./GitEnvironment.ts"
import { startGit as launch } from "./launcher/GitLauncher.ts"

export interface GitCommandResult {
  readonly exitCode: number
  readonly stdout: string
  /** The same output as bytes (file contents). */
  readonly stdoutBytes: Buffer
  readonly stderr: string
}

export interface GitCommandOptions {
  readonly gitBinary: string
  readonly env?: Readonly<Record<string, string | undefined>>
}

export const runGit = (
  options: GitCommandOptions,
  gitdir: string,
  args: ReadonlyArray<string>
): Promise<GitCommandResult> =>
  launch(options.gitBinary, ["--git-dir", gitdir, ...args], gitEnvironment(options.env)).then((child) => new Promise((resolve, reject) => {
    child.stdin.end()
    const stdout: Array<Buffer> = []
    const stderr: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk))
    child.on("error", reject)
    child.on("close", (code) => {
      const output = Buffer.concat(stdout)
      resolve({
        exitCode: code ?? -1,
        stdout: output.toString("utf8"),
        stdoutBytes: output,
        stderr: Buffer.concat(stderr).toString("utf8")
      })
    })
  }))

/** Every ref of the repository with the object it points at (`for-each-ref`, packed refs included). */
export const readRefs = async (options: GitCommandOptions, gitdir: string): Promise<Map<string, string>> => {
  const result = await runGit(options, gitdir, ["for-each-ref", "--format=%(objectname) %(refname)"])
  if (result.exitCode !== 0) throw new Error(`git for-each-ref failed: ${result.stderr.trim()}`)
  const refs = new Map<string, string>()
  for (const line of result.stdout.split("\n")) {
    const space = line.indexOf(" ")
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space))
  }
  return refs
}
