/** Runs the real git and gpg binaries for the tests; a fresh GNUPGHOME per test keeps keyrings apart. */
import { spawnSync } from "node:child_process"
import { chmod } from "node:fs/promises"
import { Effect } from "effect"
import { temporaryDirectory } from "./TemporaryDirectory.ts"

export interface CommandResult {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

export const runCommand = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly input?: string; readonly env?: Record<string, string> } = {}
): CommandResult => {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    input: options.input ?? "",
    env: { ...process.env, ...options.env },
    encoding: "utf8"
  })
  if (result.error !== undefined) throw result.error
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** stdout of a command that must succeed. */
export const output = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly input?: string; readonly env?: Record<string, string> } = {}
): string => {
  const result = runCommand(command, args, options)
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`)
  return result.stdout
}

/** An empty GNUPGHOME (mode 0700, as gpg wants) whose agent, if one started, is stopped on release. */
export const freshGnupgHome = Effect.acquireRelease(
  temporaryDirectory("gnupg").pipe(Effect.tap((home) => Effect.promise(() => chmod(home, 0o700)))),
  (home) => Effect.sync(() => runCommand("gpgconf", ["--homedir", home, "--kill", "gpg-agent"]))
)
