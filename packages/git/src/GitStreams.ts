/**
 * Git's services over one byte stream each way, as SSH carries them (an `exec` channel, or the
 * standard streams `kiln serv` gets from sshd): the stock `git upload-pack`, `git receive-pack` and
 * `git upload-archive` in their full, stateful mode. Bytes stream straight through with the
 * streams' backpressure (packs never sit in memory). A push runs as the repository's write section
 * and is followed by `afterPush`, exactly as a push over smart HTTP (SmartHttp.ts).
 *
 * git is started through the launcher (launcher/GitLauncher.ts), as over smart HTTP: forking the
 * server itself held its event loop for milliseconds per start. Its stderr then reaches the client
 * as git exits; its progress does not wait, as it goes in the side band of its standard output.
 */
import type { Readable, Writable } from "node:stream"
import { diffRefs } from "@kiln/domain/git/RefUpdate"
import { type GitCommandOptions, readRefs } from "./GitCommand.ts"
import { gitEnvironment } from "./GitEnvironment.ts"
import { GitSlotsBusy, type GitProcessSlots } from "./GitProcessSlots.ts"
import { stopGit } from "./GitProcessStop.ts"
import { startGit as launch } from "./launcher/GitLauncher.ts"
import { readRefFiles } from "./RefFiles.ts"
import { RepositoryLocks } from "./RepositoryLocks.ts"
import type { Push, PushTarget } from "./SmartHttp.ts"

export type GitStreamService = "git-upload-pack" | "git-receive-pack" | "git-upload-archive"

export interface GitStreamRequest {
  readonly service: GitStreamService
  readonly owner: string
  readonly repo: string
  /** The repository directory the access decision allowed. */
  readonly path: string
  /** `GIT_PROTOCOL` as the client sent it, already checked (`version=2`). */
  readonly protocol: string | undefined
  /** Who pushes (an account id; none for a deploy key). */
  readonly pusher: number | undefined
  /** The access decision's token for a push, handed back to `writeSection` (PushTarget.grant). */
  readonly grant?: object | undefined
  /** What the client sends; its end ends git's input. */
  readonly input: Readable
  /** Git's standard output and error, to the client; neither is ended here. */
  readonly output: Writable
  readonly errors: Writable
  /** Aborted when the client is gone: git is stopped. */
  readonly signal: AbortSignal
}

export interface GitStreamsOptions {
  readonly afterPush: (push: Push) => Promise<void>
  /** Runs a push as the repository's write section; default one at a time per path in this process. */
  readonly writeSection?: <A>(target: PushTarget, push: () => Promise<A>) => Promise<A>
  readonly gitBinary?: string
  readonly env?: Readonly<Record<string, string | undefined>>
  /** git moving no byte either way for this long is stopped (0: never). Default 2 minutes. */
  readonly idleTimeoutMillis?: number
  readonly onError?: (error: unknown, request: { readonly owner: string; readonly repo: string }) => void
  /** The pool every git of this process runs in (shared with smart HTTP); none: unbounded. */
  readonly slots?: GitProcessSlots
}

const isBrokenPipe = (error: unknown) =>
  error instanceof Error && "code" in error && (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED")

export const makeGitStreams = (options: GitStreamsOptions) => {
  const locks = new RepositoryLocks()
  const writeSection = options.writeSection ?? ((target, push) => locks.withLock(target.path, push))
  const command: GitCommandOptions = {
    gitBinary: options.gitBinary ?? "git",
    ...(options.env === undefined ? {} : { env: options.env })
  }
  const reportError = options.onError ?? ((error: unknown) => console.error("git over ssh:", error))
  const idleTimeout = options.idleTimeoutMillis ?? 120_000

  /**
   * Runs git for the request in a slot of the pool; resolves with its exit status (non-zero when
   * stopped). A full queue is refused with one line, as `forgejo serv` refuses; a client that left
   * while waiting runs nothing.
   */
  const runGit = (request: GitStreamRequest): Promise<number> =>
    options.slots === undefined
      ? spawnGit(request)
      : options.slots.run(() => spawnGit(request), request.signal).catch((error: unknown) => {
        if (error instanceof GitSlotsBusy) {
          request.errors.write(`Kiln: too many git processes at once, try again in ${error.retryAfterSeconds} seconds\n`)
          return 1
        }
        if (request.signal.aborted) return 128
        throw error
      })

  const spawnGit = async (request: GitStreamRequest) => {
    const args = [
      // Partial clones (`--filter`) as Forgejo allows them, as over HTTP.
      "-c", "uploadpack.allowFilter=true",
      "-c", "uploadpack.allowAnySHA1InWant=true",
      request.service.slice("git-".length),
      request.path
    ]
    const child = await launch(
      command.gitBinary,
      args,
      gitEnvironment({ ...command.env, ...(request.protocol === undefined ? {} : { GIT_PROTOCOL: request.protocol }) })
    )
    return new Promise<number>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const stop = () => stopGit(child, request.service, "SIGKILL")
      const finish = (code: number) => {
        if (timer !== undefined) clearTimeout(timer)
        request.signal.removeEventListener("abort", stop)
        request.input.unpipe(child.stdin)
        request.input.off("data", moved)
        resolve(code)
      }
      const moved = () => timer?.refresh()
      if (idleTimeout > 0) {
        timer = setTimeout(() => {
          stop()
          reportError(new Error(`git ${request.service} moved no data for ${idleTimeout} ms and was stopped`), request)
        }, idleTimeout)
      }
      child.on("error", (error) => {
        reportError(error, request)
        finish(128)
      })
      child.on("close", (code) => finish(code ?? 128))
      if (request.signal.aborted) stop()
      request.signal.addEventListener("abort", stop, { once: true })
      child.stdin.on("error", (error) => {
        // git stops reading once it has what it needs.
        if (!isBrokenPipe(error)) reportError(error, request)
      })
      request.input.on("data", moved)
      request.input.pipe(child.stdin)
      child.stdout.on("data", moved)
      child.stdout.pipe(request.output, { end: false })
      child.stderr.pipe(request.errors, { end: false })
    })
  }

  const refsOf = async (path: string) => await readRefFiles(path) ?? await readRefs(command, path)

  const receivePack = async (request: GitStreamRequest): Promise<number> => {
    const failed: Array<unknown> = []
    let code = 128
    await writeSection({ owner: request.owner, repo: request.repo, path: request.path, grant: request.grant }, async () => {
      // In the section nothing else pushes here, so the difference is exactly this push.
      const before = await refsOf(request.path)
      try {
        code = await runGit(request)
      } finally {
        // Even when the client vanished mid-push, refs git did update must reach the caller.
        const after = await refsOf(request.path)
        const updates = diffRefs(before, after)
        if (updates.length > 0) {
          await options.afterPush({ owner: request.owner, repo: request.repo, path: request.path, updates, refs: after, pusher: request.pusher })
            .catch((error: unknown) => {
              failed.push(error)
              throw error
            })
        }
      }
    }).catch((error: unknown) => {
      // The push itself went through: its client is not told about a failed follow-up.
      if (!failed.includes(error)) throw error
    })
    for (const error of failed) reportError(error, request)
    return code
  }

  return {
    /** Serves the request; resolves with the exit status to report to the client. */
    serve: (request: GitStreamRequest): Promise<number> =>
      request.service === "git-receive-pack" ? receivePack(request) : runGit(request)
  }
}

export type GitStreams = ReturnType<typeof makeGitStreams>
