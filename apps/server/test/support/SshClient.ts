/**
 * The real OpenSSH client and git over `ssh://` for tests: key pairs made with ssh-keygen, no
 * known_hosts, no agent, no prompts, each key tried alone.
 */
import { execFile, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface SshKeyPair {
  readonly privateFile: string
  readonly publicKey: string
}

export const makeKeyPair = (type: "ed25519" | "rsa" = "ed25519"): SshKeyPair => {
  const dir = mkdtempSync(join(tmpdir(), "kiln-ssh-key-"))
  const privateFile = join(dir, "key")
  execFileSync("ssh-keygen", ["-q", "-t", type, ...(type === "rsa" ? ["-b", "3072"] : []), "-N", "", "-C", "test", "-f", privateFile])
  return { privateFile, publicKey: readFileSync(`${privateFile}.pub`, "utf8").trim() }
}

/** The ssh command line git runs (GIT_SSH_COMMAND) for a key and port. */
export const sshCommand = (key: SshKeyPair, port: number) =>
  [
    // Port 0: the one the URL names.
    "ssh", "-i", key.privateFile, ...(port === 0 ? [] : ["-p", String(port)]),
    "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
    "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "IdentityAgent=none"
  ]

export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const gitEnv = (home: string) => ({
  ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("GIT_"))),
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "Ada",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  GIT_COMMITTER_NAME: "Ada",
  GIT_COMMITTER_EMAIL: "ada@example.com",
  LC_ALL: "C"
})

export const runProgram = (command: string, args: ReadonlyArray<string>, options: { cwd?: string; env?: Record<string, string>; input?: string } = {}) =>
  new Promise<Ran>((resolve) => {
    const child = execFile(command, [...args], { cwd: options.cwd, env: options.env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
      resolve({ code, stdout: String(stdout), stderr: String(stderr) })
    })
    if (options.input !== undefined) child.stdin?.end(options.input)
    else child.stdin?.end()
  })

/** git with `key` on `port`: `run(args)` in `cwd` (default the sandbox). */
export const sshGit = (key: SshKeyPair, port: number) => {
  const home = mkdtempSync(join(tmpdir(), "kiln-ssh-git-"))
  const env = { ...gitEnv(home), GIT_SSH_COMMAND: sshCommand(key, port).join(" ") }
  return {
    home,
    env,
    run: (args: ReadonlyArray<string>, cwd: string = home) => runProgram("git", args, { cwd, env }),
    spawn: (args: ReadonlyArray<string>, cwd: string = home) => spawn("git", [...args], { cwd, env, stdio: "pipe" })
  }
}

/** `ssh -p port git@127.0.0.1 <command>` with `key`. */
export const sshExec = (key: SshKeyPair, port: number, command: ReadonlyArray<string>, user = "git") =>
  runProgram(sshCommand(key, port)[0] ?? "ssh", [...sshCommand(key, port).slice(1), `${user}@127.0.0.1`, ...command])
