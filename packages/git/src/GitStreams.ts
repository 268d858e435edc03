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
 *
 * A protocol v2 `upload-pack` starts from the listings kept for smart HTTP too (KeptListings.ts):
 * the capability advertisement and each `ls-refs` are answered from them while they hold (an
 * `ls-refs` they lack is asked of a one-request git and kept), and git is started only for the
 * first other request (a `fetch`), given everything from that request on as the client sent it,
 * its own advertisement left out. A fetch that finds nothing new (CI polling) starts no git; one
 * that brings commits starts the one it always did. A push carries the kept listings forward, as
 * over smart HTTP.
 */
import type { Readable, Writable } from "node:stream"
import { diffRefs } from "@kiln/domain/git/RefUpdate"
import type { GitCommandOptions } from "./GitCommand.ts"
import { gitEnvironment, SERVED_GIT_SETTINGS } from "./GitEnvironment.ts"
import { GitSlotsBusy, type GitProcessSlots } from "./GitProcessSlots.ts"
import { stopGit } from "./GitProcessStop.ts"
import { type KeptListings, snapshotOf } from "./KeptListings.ts"
import { startGit as launch } from "./launcher/GitLauncher.ts"
import { withoutLeadingAdvertisement } from "./LeadingAdvertisement.ts"
import { PktLineRequests } from "./PktLineRequests.ts"
import { isProtocolV2 } from "./ProtocolV2Capabilities.ts"
import type { GitAnswer } from "./RefListings.ts"
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
  /** The listings kept by smart HTTP (its `listings`); none: every session starts git at once. */
  readonly listings?: KeptListings | undefined
}

/** How git takes over a session whose start was answered from kept listings. */
interface Handover {
  /** What the client sent and was not answered, for git's input before the rest of the stream. */
  readonly head: Buffer
  /** The client's input has ended already: git's ends after `head`. */
  readonly ended: boolean
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
  const runGit = (request: GitStreamRequest, handover?: Handover): Promise<number> =>
    options.slots === undefined
      ? spawnGit(request, handover)
      : options.slots.run(() => spawnGit(request, handover), request.signal).catch(refusedSlot(request))

  /** The exit status for a git that could not have a slot: the pool's queue was full, or the client left. */
  const refusedSlot = (request: GitStreamRequest) => (error: unknown): number => {
    if (error instanceof GitSlotsBusy) {
      request.errors.write(`Kiln: too many git processes at once, try again in ${error.retryAfterSeconds} seconds\n`)
      return 1
    }
    if (request.signal.aborted) return 128
    throw error
  }

  const spawnGit = async (request: GitStreamRequest, handover: Handover | undefined) => {
    const args = [...SERVED_GIT_SETTINGS, request.service.slice("git-".length), request.path]
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
      if (handover !== undefined) child.stdin.write(handover.head)
      if (handover?.ended === true) {
        child.stdin.end()
      } else {
        request.input.on("data", moved)
        request.input.pipe(child.stdin)
      }
      child.stdout.on("data", moved)
      if (handover === undefined) child.stdout.pipe(request.output, { end: false })
      else child.stdout.pipe(withoutLeadingAdvertisement()).pipe(request.output, { end: false })
      child.stderr.pipe(request.errors, { end: false })
    })
  }

  /**
   * git's whole answer to `input` from `git upload-pack --stateless-rpc` (one request, as smart HTTP
   * asks), in a slot: the capability advertisement and a missing `ls-refs`.
   */
  const askGit = (request: GitStreamRequest, input: Buffer | undefined): Promise<GitAnswer> => {
    const ask = async (): Promise<GitAnswer> => {
      const child = await launch(
        command.gitBinary,
        [...SERVED_GIT_SETTINGS, "upload-pack", "--stateless-rpc", ...(input === undefined ? ["--advertise-refs"] : []), request.path],
        gitEnvironment({ ...command.env, ...(request.protocol === undefined ? {} : { GIT_PROTOCOL: request.protocol }) })
      )
      const chunks: Array<Buffer> = []
      const errors: Array<Buffer> = []
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
      child.stderr.on("data", (chunk: Buffer) => errors.push(chunk))
      child.stdin.on("error", (error) => {
        if (!isBrokenPipe(error)) reportError(error, request)
      })
      child.stdin.end(input)
      const stop = () => stopGit(child, request.service, "SIGKILL")
      request.signal.addEventListener("abort", stop, { once: true })
      const timer = idleTimeout > 0 ? setTimeout(stop, idleTimeout) : undefined
      const code = await new Promise<number>((resolve) => {
        child.on("error", (error) => {
          reportError(error, request)
          resolve(128)
        })
        child.on("close", (exitCode) => resolve(exitCode ?? 128))
      })
      if (timer !== undefined) clearTimeout(timer)
      request.signal.removeEventListener("abort", stop)
      if (code !== 0) reportError(new Error(`git upload-pack exited ${code}: ${Buffer.concat(errors).toString("utf8").trim()}`), request)
      return { answer: Buffer.concat(chunks), complete: code === 0 }
    }
    return options.slots === undefined ? ask() : options.slots.run(ask, request.signal)
  }

  /** A protocol v2 `upload-pack` session, answered from `listings` until git is needed (see above). */
  const uploadPackV2 = async (request: GitStreamRequest, listings: KeptListings, protocol: string): Promise<number> => {
    const advertisement = await listings.capabilities.of(request.path, protocol, async () => {
      const made = await askGit(request, undefined)
      return made.complete ? made.answer : undefined
    })
    if (advertisement === undefined) return runGit(request)
    request.output.write(advertisement)
    const requests = new PktLineRequests(request.input)
    for (;;) {
      const next = await requests.next(request.signal, idleTimeout)
      switch (next.kind) {
        case "ls-refs": {
          let failed = false
          const answer = await listings.refs.answer(request.path, protocol, next.bytes, async () => {
            const asked = await askGit(request, next.bytes)
            failed = !asked.complete
            return asked
          })
          request.output.write(answer)
          // What a git that failed wrote is all the client gets, as from git itself.
          if (failed) return 128
          continue
        }
        case "git":
          return runGit(request, next)
        case "end":
          return 0
        case "stopped":
          if (next.idle) reportError(new Error(`git upload-pack's client sent nothing for ${idleTimeout} ms and was left`), request)
          return 128
      }
    }
  }

  const receivePack = async (request: GitStreamRequest): Promise<number> => {
    const failed: Array<unknown> = []
    let code = 128
    await writeSection({ owner: request.owner, repo: request.repo, path: request.path, grant: request.grant }, async () => {
      // In the section nothing else pushes here, so the difference is exactly this push.
      const before = await snapshotOf(command, request.path)
      try {
        code = await runGit(request)
      } finally {
        // Even when the client vanished mid-push, refs git did update must reach the caller.
        const after = await snapshotOf(command, request.path)
        const updates = diffRefs(before.refs, after.refs)
        options.listings?.carry(request.path, before.snapshot, after.snapshot, updates)
        if (updates.length > 0) {
          await options.afterPush({ owner: request.owner, repo: request.repo, path: request.path, updates, refs: after.refs, pusher: request.pusher })
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
    serve: (request: GitStreamRequest): Promise<number> => {
      if (request.service === "git-receive-pack") return receivePack(request)
      const { listings } = options
      if (request.service === "git-upload-pack" && listings !== undefined && request.protocol !== undefined && isProtocolV2(request.protocol)) {
        return uploadPackV2(request, listings, request.protocol).catch(refusedSlot(request))
      }
      return runGit(request)
    }
  }
}

export type GitStreams = ReturnType<typeof makeGitStreams>
