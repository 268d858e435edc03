/**
 * The GitTransfers adapter: forks and migrations through `git clone` into a staging directory
 * next to the repositories (same file system, so placing it is one rename).
 *
 * Forks: `git clone --bare` of a local path hard-links the object files when it can and copies
 * them otherwise. Git never rewrites an object file in place, so the two repositories stay
 * independent: a push to one adds files to it alone, and deleting the other leaves the links.
 *
 * Migrations: git is pinned to the addresses the host policy checked (`http.curloptResolve`, or the
 * address itself for `git://`), redirects are refused, credentials travel in an Authorization
 * header set through the environment (never in the URL, the config or the command line), and no
 * prompt or credential helper runs. A watchdog kills the clone when the staging directory grows
 * past the size limit or stops growing for the stall timeout.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { lookup } from "node:dns/promises"
import { lstat, mkdir, rename, rm, stat } from "node:fs/promises"
import { isIP } from "node:net"
import { dirname, join } from "node:path"
import { Effect, Layer, Option } from "effect"
import { AlreadyExists, Invalid, NotFound } from "@kiln/domain/errors"
import type { RepositoryLocation } from "@kiln/domain/git/GitStorage"
import { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import { GitTransfers, type RemoteSource, type StagedRepository, TransferFailure } from "@kiln/domain/git/GitTransfers"
import { directorySize } from "./DirectorySize.ts"
import { runGit } from "./GitCommand.ts"
import { gitEnvironment } from "./GitEnvironment.ts"
import { isStorageName, repositoryPath, stagingPath } from "./RepositoryPaths.ts"

export interface GitTransfersOptions {
  readonly gitBinary?: string
  /** Bytes a migration may take on disk. Default 2 GiB. */
  readonly maxSize?: number
  /** A migration whose files stop growing for this long is aborted. Default 60 s. */
  readonly stallTimeoutMillis?: number
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))
const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined

interface CloneOutcome {
  readonly exitCode: number
  readonly stderr: string
  readonly killed: "tooLarge" | "stalled" | undefined
}

/** Git's environment for talking to a remote: no prompts, no helpers, no user or system config, no inherited secrets. */
const remoteEnvironment = (extraConfig: ReadonlyArray<readonly [string, string]>): Record<string, string> => {
  const config: Record<string, string> = { GIT_CONFIG_COUNT: String(extraConfig.length) }
  extraConfig.forEach(([key, value], index) => {
    config[`GIT_CONFIG_KEY_${index}`] = key
    config[`GIT_CONFIG_VALUE_${index}`] = value
  })
  return gitEnvironment({ ...config, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" })
}

export const makeGitTransfers = (root: string, options: GitTransfersOptions = {}) =>
  Effect.sync(() => {
    const gitBinary = options.gitBinary ?? "git"
    const maxSize = options.maxSize ?? 2 * 1024 ** 3
    const stallTimeout = options.stallTimeoutMillis ?? 60_000
    const failure = (operation: string) => (error: unknown) => new GitStorageFailure({ operation, message: describe(error) })

    /** A staging directory that closing the scope removes (a no-op once placed). */
    const staging = Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const parent = join(root, ".staging")
          await mkdir(parent, { recursive: true })
          return stagingPath(join(parent, "transfer.git"))
        },
        catch: failure("stage")
      }),
      (path) => Effect.promise(() => rm(path, { recursive: true, force: true }))
    )

    const headOf = (gitdir: string) =>
      Effect.promise(() => runGit({ gitBinary }, gitdir, ["symbolic-ref", "--quiet", "HEAD"])).pipe(
        Effect.map((result) => {
          const ref = result.stdout.trim()
          return result.exitCode === 0 && ref.startsWith("refs/heads/") ? Option.some(ref.slice("refs/heads/".length)) : Option.none<string>()
        })
      )

    /** What adopting a staged repository needs to know, read with the git CLI (no pack is loaded). */
    const describeStaged = (gitdir: string) =>
      Effect.gen(function*() {
        const head = yield* headOf(gitdir)
        const listed = yield* Effect.promise(() => runGit({ gitBinary }, gitdir, ["for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/"]))
        const branches = listed.stdout.split("\n").filter((line) => line !== "").sort()
        const size = yield* Effect.promise(() => directorySize(gitdir))
        return { head, branches, size }
      })

    const staged = (path: string, facts: { readonly head: Option.Option<string>; readonly branches: ReadonlyArray<string>; readonly size: number }): StagedRepository => ({
      ...facts,
      place: (location: RepositoryLocation) =>
        Effect.gen(function*() {
          if (!isStorageName(location.owner) || !isStorageName(location.name)) {
            return yield* new Invalid({ message: `not a repository name: ${location.owner}/${location.name}` })
          }
          const target = repositoryPath(root, location)
          const exists = new AlreadyExists({ message: `repository files already exist [uname: ${location.owner}, name: ${location.name}]` })
          if (yield* Effect.promise(() => lstat(target).then(() => true, () => false))) return yield* exists
          yield* Effect.tryPromise({ try: () => mkdir(dirname(target), { recursive: true }), catch: failure("place") })
          yield* Effect.tryPromise({ try: () => rename(path, target), catch: (error) => error }).pipe(
            Effect.catch((error) =>
              Effect.fail(errorCode(error) === "ENOTEMPTY" || errorCode(error) === "EEXIST" ? exists : failure("place")(error)))
          )
        })
    })

    const dropRemote = (gitdir: string) =>
      Effect.promise(() => runGit({ gitBinary }, gitdir, ["remote", "remove", "origin"])).pipe(Effect.asVoid)

    /** Runs the clone under the watchdog. */
    const watchedClone = (args: ReadonlyArray<string>, env: Record<string, string>, target: string) =>
      Effect.callback<CloneOutcome>((resume) => {
        const child: ChildProcess = spawn(gitBinary, [...args], { env, stdio: ["ignore", "ignore", "pipe"] })
        const stderr: Array<Buffer> = []
        let killed: CloneOutcome["killed"] = undefined
        let lastSize = -1
        let lastGrowth = Date.now()
        let polling = false
        child.stderr?.on("data", (chunk: Buffer) => {
          if (stderr.length < 256) stderr.push(chunk)
        })
        const watchdog = setInterval(() => {
          if (polling) return
          polling = true
          // The clone makes its directory after it starts: until then it has no size.
          directorySize(target).catch(() => 0).then((size) => {
            polling = false
            if (killed !== undefined) return
            if (size > maxSize) killed = "tooLarge"
            else if (size !== lastSize) {
              lastSize = size
              lastGrowth = Date.now()
            } else if (Date.now() - lastGrowth > stallTimeout) killed = "stalled"
            if (killed !== undefined) child.kill("SIGKILL")
          }, () => {
            polling = false
          })
        }, 200)
        child.on("error", (error) => {
          clearInterval(watchdog)
          resume(Effect.succeed({ exitCode: -1, stderr: describe(error), killed }))
        })
        child.on("close", (code) => {
          clearInterval(watchdog)
          resume(Effect.succeed({ exitCode: code ?? -1, stderr: Buffer.concat(stderr).toString("utf8"), killed }))
        })
        return Effect.sync(() => {
          clearInterval(watchdog)
          child.kill("SIGKILL")
        })
      })

    /** The URL git is given and the config that pins it to the checked addresses. */
    const pinned = (source: RemoteSource): { readonly url: string; readonly config: Array<readonly [string, string]> } => {
      const config: Array<readonly [string, string]> = [
        ["http.followRedirects", "false"],
        ["credential.helper", ""],
        ["core.askPass", ""],
        ["protocol.allow", "never"],
        ["protocol.http.allow", "always"],
        ["protocol.https.allow", "always"],
        ["protocol.git.allow", "always"],
        ["protocol.file.allow", "always"],
        ["http.lowSpeedLimit", "1"],
        ["http.lowSpeedTime", String(Math.max(1, Math.ceil(stallTimeout / 1000)))]
      ]
      if (source.addresses.length === 0) return { url: source.url, config }
      const url = new URL(source.url)
      const host = url.hostname.replace(/^\[|\]$/g, "")
      if (isIP(host) !== 0) return { url: source.url, config }
      const bracket = (address: string) => (isIP(address) === 6 ? `[${address}]` : address)
      if (url.protocol === "git:") {
        // git:// resolves names itself: hand it the checked address instead.
        url.hostname = bracket(source.addresses[0] ?? host)
        return { url: url.toString(), config }
      }
      const port = url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80"
      config.push(["http.curloptResolve", `${host}:${port}:${source.addresses.map(bracket).join(",")}`])
      return { url: source.url, config }
    }

    const classify = (outcome: CloneOutcome): TransferFailure => {
      if (outcome.killed === "tooLarge") {
        return new TransferFailure({ reason: "tooLarge", message: `the repository is larger than the limit of ${maxSize} bytes` })
      }
      if (outcome.killed === "stalled") {
        return new TransferFailure({ reason: "stalled", message: `the remote sent nothing for ${stallTimeout} ms` })
      }
      const text = outcome.stderr.split("\n").map((line) => line.trim()).filter((line) => line !== "").join(" ")
      // 401 as git reports the status, not anywhere in the text: a URL's port may hold those digits.
      const auth = /Authentication failed|could not read Username|could not read Password|Bad credentials|returned error: 401\b/.test(text)
      return new TransferFailure({ reason: auth ? "auth" : "failed", message: text === "" ? `git exited ${outcome.exitCode}` : text })
    }

    return GitTransfers.of({
      fork: (from) =>
        Effect.gen(function*() {
          if (!isStorageName(from.owner) || !isStorageName(from.name)) {
            return yield* new Invalid({ message: `not a repository name: ${from.owner}/${from.name}` })
          }
          const source = repositoryPath(root, from)
          if (!(yield* Effect.promise(() => stat(join(source, "HEAD")).then(() => true, () => false)))) {
            return yield* new NotFound({ message: `repository does not exist [owner: ${from.owner}, name: ${from.name}]` })
          }
          const target = yield* staging
          // No --local: git hard-links when it can and falls back to copying across file systems.
          const result = yield* Effect.promise(() => runGit({ gitBinary }, source, ["clone", "--bare", "--quiet", "--", source, target]))
          if (result.exitCode !== 0) return yield* new GitStorageFailure({ operation: "fork", message: result.stderr.trim() })
          yield* dropRemote(target)
          return staged(target, yield* describeStaged(target))
        }),

      cloneRemote: (source) =>
        Effect.gen(function*() {
          const target = yield* staging
          const { url, config } = pinned(source)
          const header = Option.map(source.credentials, ({ username, password }) =>
            ["http.extraHeader", `Authorization: Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`] as const)
          const env = remoteEnvironment(Option.match(header, { onNone: () => config, onSome: (entry) => [...config, entry] }))
          const outcome = yield* watchedClone(
            ["clone", source.mirror ? "--mirror" : "--bare", "--quiet", "--", url, target],
            env,
            target
          )
          if (outcome.exitCode !== 0 || outcome.killed !== undefined) return yield* classify(outcome)
          // A clone quicker than the watchdog's first look is measured once it is done.
          if ((yield* Effect.promise(() => directorySize(target))) > maxSize) {
            return yield* classify({ ...outcome, killed: "tooLarge" })
          }
          if (!source.mirror) yield* dropRemote(target)
          return staged(target, yield* describeStaged(target))
        }),

      resolveHost: (host) =>
        isIP(host) !== 0
          ? Effect.succeed([host])
          : Effect.promise(() => lookup(host, { all: true, verbatim: true }).then((found) => found.map((entry) => entry.address), () => [])),

      isDirectory: (path) => Effect.promise(() => stat(path).then((found) => found.isDirectory(), () => false))
    })
  })

export const GitTransfersLive = (root: string, options: GitTransfersOptions = {}): Layer.Layer<GitTransfers> =>
  Layer.effect(GitTransfers, makeGitTransfers(root, options))
