/**
 * Git's smart HTTP protocol for `/{owner}/{repo}(.git)/(info/refs|git-upload-pack|git-receive-pack)`,
 * served by the stock `git upload-pack` / `git receive-pack --stateless-rpc`, as Forgejo does.
 * Bodies stream straight through between the socket and git (packs never sit in memory), but for
 * the start of a fetch's request, read before git starts (its first MiB: all of it as git sends
 * most), so that a client sending slowly holds no git slot and a protocol v2 `ls-refs` is answered
 * from memory when git's answer cannot have changed, as the v0/v1 ref advertisements are
 * (RefListings.ts; a push carries its own forward, ReceivePackAdvertisement.ts); who may read or
 * push is asked of the caller, and pushes are followed by a callback under a per-repository lock.
 */
import { once } from "node:events"
import { statSync } from "node:fs"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Writable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { createGunzip } from "node:zlib"
import { diffRefs, type RefUpdate } from "@kiln/domain/git/RefUpdate"
import type { GitCommandOptions } from "./GitCommand.ts"
import { gitEnvironment, SERVED_GIT_SETTINGS } from "./GitEnvironment.ts"
import { type GitProcess, startGit as launch } from "./launcher/GitLauncher.ts"
import { ADVERTISEMENT, type GitAnswer, isLsRefsRequest, namesOwnRefsAlone, RECEIVE_ADVERTISEMENT } from "./RefListings.ts"
import { KeptListings, snapshotOf } from "./KeptListings.ts"
import { isProtocolV2 } from "./ProtocolV2Capabilities.ts"
import { FLUSH_LINE, pktLine } from "./PktLine.ts"
import * as ReceivePackAdvertisement from "./ReceivePackAdvertisement.ts"
import { GitProcessSlots, GitSlotsBusy } from "./GitProcessSlots.ts"
import { stopGit } from "./GitProcessStop.ts"
import { RepositoryLocks } from "./RepositoryLocks.ts"

export type GitService = "git-upload-pack" | "git-receive-pack"

export interface GitCredentials {
  readonly username: string
  readonly password: string
}

export interface GitAccessRequest {
  readonly owner: string
  readonly repo: string
  /** `git-upload-pack` reads (clone, fetch), `git-receive-pack` writes (push). */
  readonly service: GitService
  /** From HTTP Basic; undefined when the request carried none. */
  readonly credentials: GitCredentials | undefined
  /** The client's address, for limiting failed sign-ins: as the handler was given it, or the connection's peer. */
  readonly clientAddress?: string | undefined
  /** Aborted when the client leaves: a decision still waiting (a sign-in queued for its turn) is no longer wanted. */
  readonly signal?: AbortSignal | undefined
}

export type GitAccessDecision =
  /**
   * `pusher`: the account id a push is made by, handed to `afterPush`. `grant`: the caller's own
   * token for what it decided on (the repository it read), handed back to `writeSection` with the
   * push it allowed. `client`: who the git slots' per-client share counts the request against
   * (GitProcessSlots), e.g. an anonymous caller's address; none, no share applies.
   */
  | {
    readonly kind: "allowed"
    readonly path: string
    readonly pusher?: number | undefined
    readonly grant?: object | undefined
    readonly client?: string | undefined
  }
  | { readonly kind: "unauthorized" }
  /** A signed-in account refused before anything else (401 with `message`, and no challenge). */
  | { readonly kind: "account-refused"; readonly message: string }
  /** Refused (403), in the transport's words. */
  | { readonly kind: "forbidden"; readonly message: string }
  | { readonly kind: "not-found" }
  /** The repository was renamed: the same request goes to its current `owner/repo` (301). */
  | { readonly kind: "moved"; readonly owner: string; readonly repo: string }
  /** Too many sign-ins: 429, to be tried again after this many seconds. */
  | { readonly kind: "throttled"; readonly retryAfterSeconds: number }
  /** A push to an owner over quota: refused (413) before git reads anything of it. */
  | { readonly kind: "quota-exceeded" }

export interface Push {
  readonly owner: string
  readonly repo: string
  /** The repository directory the authorization allowed. */
  readonly path: string
  /** What the push changed, in ref name order (never empty). */
  readonly updates: ReadonlyArray<RefUpdate>
  /** Every ref after the push (full name to id), read in its write section. */
  readonly refs: ReadonlyMap<string, string>
  /** Who pushed, as the authorization said. */
  readonly pusher: number | undefined
}

/** The repository a push goes to. */
export interface PushTarget {
  readonly owner: string
  readonly repo: string
  readonly path: string
  /** The `grant` of the decision that allowed the push, when it had one. */
  readonly grant?: object | undefined
}

export interface SmartHttpOptions {
  /** May reject once `request.signal` is aborted: the client has left, and nothing is answered. */
  readonly authorize: (request: GitAccessRequest) => Promise<GitAccessDecision>
  /**
   * Runs after a push changed refs, before the push's response ends, inside the write section.
   * A rejection is reported (`onError`) and fails the section, not the push.
   */
  readonly afterPush: (push: Push) => Promise<void>
  /**
   * Runs a push (git receive-pack and `afterPush`) as the repository's write section: nothing else
   * that must not interleave with pushes runs meanwhile. Default: one at a time per repository
   * path within this process.
   */
  readonly writeSection?: <A>(target: PushTarget, push: () => Promise<A>) => Promise<A>
  readonly gitBinary?: string
  /** Extra environment for the git processes. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Failures that can no longer reach the client (afterPush rejected, git exited badly). */
  readonly onError?: (error: unknown, request: { readonly owner: string; readonly repo: string }) => void
  /**
   * The path clients see before the request's own path (the root URL's path without its trailing
   * slash, Forgejo's `AppSubURL`), which a proxy or an embedding strips: redirects carry it.
   */
  readonly basePath?: string
  /**
   * A git process through which no byte moves (from the client into git, or out of git) for this
   * long is killed and the response dropped: a stalled client or a stuck git cannot hold a process
   * forever. A transfer that keeps moving is never cut. Default 2 minutes; 0 turns it off.
   */
  readonly idleTimeoutMillis?: number
  /**
   * The slots every git process of this handler runs in (GitProcessSlots.ts), shared with the
   * other transports. Default: a pool of this handler's own, sized by the CPU count.
   */
  readonly slots?: GitProcessSlots
  /** The listings kept between requests, shared with the other transports. Default: this handler's own. */
  readonly listings?: KeptListings
}

export type SmartHttpAction = "info/refs" | GitService

export interface SmartHttpRoute {
  readonly owner: string
  readonly repo: string
  readonly action: SmartHttpAction
}

const routePattern = /\/([^/]+)\/([^/]+)\/(info\/refs|git-upload-pack|git-receive-pack)$/

/**
 * The smart HTTP route a path ends with (the part before `/{owner}` is the mount point and is not
 * looked at); undefined for other paths. A `.git` suffix on the repository is dropped.
 */
export const parseSmartHttpPath = (pathname: string): SmartHttpRoute | undefined => {
  const match = routePattern.exec(pathname)
  if (match === null) return undefined
  const [, owner = "", repo = "", action = ""] = match
  if (action !== "info/refs" && action !== "git-upload-pack" && action !== "git-receive-pack") return undefined
  try {
    return { owner: decodeURIComponent(owner), repo: decodeURIComponent(repo).replace(/\.git$/, ""), action }
  } catch {
    return undefined
  }
}

/**
 * The request's path and query with its `/{owner}/{repo}` replaced, the mount point, a `.git`
 * suffix and the action kept: git follows the 301 of `info/refs` and fetches from there.
 */
export const movedPath = (url: URL, to: { readonly owner: string; readonly repo: string }): string => {
  const match = routePattern.exec(url.pathname)
  if (match === null) return `${url.pathname}${url.search}`
  const [, , repo = "", action = ""] = match
  const suffix = repo.endsWith(".git") ? ".git" : ""
  const mount = url.pathname.slice(0, match.index)
  return `${mount}/${encodeURIComponent(to.owner)}/${encodeURIComponent(to.repo)}${suffix}/${action}${url.search}`
}

const parseBasic = (header: string | undefined): GitCredentials | undefined => {
  const match = header === undefined ? null : /^Basic\s+(\S+)\s*$/i.exec(header)
  if (match === null || match[1] === undefined) return undefined
  const decoded = Buffer.from(match[1], "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

// What Forgejo lets through to GIT_PROTOCOL: `key=value` pairs joined by `:`.
const safeGitProtocol = /^[0-9a-zA-Z]+=[0-9a-zA-Z]+(?::[0-9a-zA-Z]+=[0-9a-zA-Z]+)*$/

const gitProtocol = (req: IncomingMessage): string | undefined => {
  const value = req.headers["git-protocol"]
  return typeof value === "string" && safeGitProtocol.test(value) ? value : undefined
}

const noCache = {
  "Expires": "Fri, 01 Jan 1980 00:00:00 GMT",
  "Pragma": "no-cache",
  "Cache-Control": "no-cache, max-age=0, must-revalidate"
}

/** What a v0/v1 advertisement over HTTP starts with, before git's own. */
const preamble = (service: GitService) => Buffer.from(`${pktLine(`# service=${service}\n`)}${FLUSH_LINE}`, "latin1")

const plain = (res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", ...headers })
  res.end(`${text}\n`)
}

/**
 * The reason every request's signal aborts with: given one, `abort()` makes no DOMException (and
 * stack trace) at the close of every git request, a few percent of its CPU.
 */
const connectionClosed = new Error("the connection closed")

/** A signal that aborts when the response's connection closes (the client went away, or it ended). */
const abortedWith = (res: ServerResponse): AbortSignal => {
  const controller = new AbortController()
  if (res.destroyed) controller.abort(connectionClosed)
  else res.once("close", () => controller.abort(connectionClosed))
  return controller.signal
}

/**
 * How much of a request is read before it waits for a git slot (and a push for its repository's
 * write section): git's client sends a request up to its `http.postBuffer` (1 MiB) whole, with a
 * Content-Length; a fetch's negotiation rarely needs more, nor a push of a few commits. A client that
 * trickles its request holds no slot meanwhile (eight such clients held every slot, and every other
 * fetch waited); a body larger than this starts git once its first MiB has come, and the rest streams.
 */
const READ_FIRST_BYTES = 1024 * 1024

/** A request whose body moved no byte for the idle timeout before git started: dropped, as a stalled git is. */
class RequestBodyStalled extends Error {
  constructor(idleMillis: number) {
    super(`the request body moved no data for ${idleMillis} ms before git started, and was dropped`)
  }
}

/** A request body's start: all of it (`ended`), or its first READ_FIRST_BYTES and more to come from the request. */
interface BodyStart {
  readonly head: Buffer
  readonly ended: boolean
}

/**
 * The first `limit` bytes of `req` (all of it when it is shorter), read before git starts; rejects
 * when the client goes away, or sends nothing for `idleMillis` (0: no limit), as a streamed body
 * would be given up. A longer body is left paused after its first chunks.
 */
const readStart = (req: IncomingMessage, limit: number, idleMillis: number): Promise<BodyStart> =>
  new Promise((resolve, reject) => {
    // Gone while its sign-in was decided: no event would come.
    if (req.destroyed) return reject(new Error("the client went away before its request ended"))
    const chunks: Array<Buffer> = []
    let bytes = 0
    const timer = idleMillis > 0 ? setTimeout(() => req.destroy(new RequestBodyStalled(idleMillis)), idleMillis) : undefined
    const settle = () => {
      clearTimeout(timer)
      req.off("data", onData)
      req.off("end", onEnd)
      req.off("close", onClose)
      req.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      timer?.refresh()
      chunks.push(chunk)
      bytes += chunk.length
      if (bytes < limit) return
      req.pause()
      settle()
      resolve({ head: Buffer.concat(chunks), ended: false })
    }
    const onEnd = () => {
      settle()
      resolve({ head: Buffer.concat(chunks), ended: true })
    }
    const onClose = () => {
      settle()
      reject(new Error("the client went away before its request ended"))
    }
    const onError = (error: Error) => {
      settle()
      reject(error)
    }
    req.on("data", onData)
    req.once("end", onEnd)
    req.once("close", onClose)
    req.once("error", onError)
  })

/** The whole body: its start, then what the request still has. */
async function* restOf(start: BodyStart, req: IncomingMessage): AsyncGenerator<Buffer> {
  yield start.head
  if (!start.ended) yield* req
}

/**
 * Writes `data` to git's input and ends it, settling when it is written or fails: as
 * `pipeline(Readable.from([data]), input)` does, without the AbortController pipeline makes and
 * aborts on every call (and the DOMException, with its stack trace, that the abort makes).
 */
const endWith = (input: Writable, data: Buffer): Promise<void> =>
  new Promise((resolve, reject) => {
    input.on("error", reject)
    input.end(data, (error?: Error | null) => (error ? reject(error) : resolve()))
  })

const isGzipped = (req: IncomingMessage): boolean => {
  const encoding = req.headers["content-encoding"]
  return encoding === "gzip" || encoding === "x-gzip"
}

/**
 * git's probe before a push whose pack is past its `http.postBuffer` (1 MiB): a bare flush, to learn
 * that the request is authorized before streaming the pack. receive-pack answers it with nothing and
 * changes nothing, so it is answered here without a git process or the repository's write section
 * (where it waited behind any push in progress).
 */
const isProbe = (req: IncomingMessage, body: BodyStart): boolean =>
  body.ended && !isGzipped(req) && body.head.length === FLUSH_LINE.length && body.head.toString("latin1") === FLUSH_LINE

export const makeSmartHttpHandler = (options: SmartHttpOptions) => {
  const locks = new RepositoryLocks()
  const writeSection = options.writeSection ?? ((target, push) => locks.withLock(target.path, push))
  const command: GitCommandOptions = {
    gitBinary: options.gitBinary ?? "git",
    ...(options.env === undefined ? {} : { env: options.env })
  }
  const reportError = options.onError ?? ((error: unknown) => console.error("smart http:", error))
  const idleTimeout = options.idleTimeoutMillis ?? 120_000
  const slots = options.slots ?? new GitProcessSlots()

  /**
   * Stops `git` (`stop`; by default it is killed) once nothing has moved through it for the idle
   * timeout; the answer stops the watch.
   */
  const watchIdle = (
    git: { readonly child: GitProcess },
    req: IncomingMessage | undefined,
    res: ServerResponse,
    route: SmartHttpRoute,
    stop: () => void = () => git.child.kill("SIGKILL")
  ) => {
    if (idleTimeout <= 0) return () => undefined
    const timer = setTimeout(() => {
      stop()
      res.destroy()
      reportError(new Error(`git ${route.action} moved no data for ${idleTimeout} ms and was stopped`), route)
    }, idleTimeout)
    const moved = () => timer.refresh()
    git.child.stdout.on("data", moved)
    req?.on("data", moved)
    return () => {
      clearTimeout(timer)
      req?.off("data", moved)
    }
  }

  /** Starts `git <service> --stateless-rpc`; resolves once the process runs (rejects if it cannot). */
  const startGit = async (service: GitService, path: string, protocol: string | undefined, advertise: boolean) => {
    const args = [
      ...SERVED_GIT_SETTINGS,
      service.slice("git-".length),
      "--stateless-rpc",
      ...(advertise ? ["--advertise-refs"] : []),
      path
    ]
    const child = await launch(
      command.gitBinary,
      args,
      gitEnvironment({ ...command.env, ...(protocol === undefined ? {} : { GIT_PROTOCOL: protocol }) })
    )
    if (advertise) child.stdin.end()
    const stderr: Array<Buffer> = []
    let stderrBytes = 0
    child.stderr.on("data", (chunk: Buffer) => {
      // Keep a bounded tail for error reports; git's progress goes to the client, not here.
      if (stderrBytes < 16_384) stderr.push(chunk)
      stderrBytes += chunk.length
    })
    const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)))
    await once(child, "spawn")
    return { child, exited, stderr: () => Buffer.concat(stderr).toString("utf8").trim() }
  }

  /** A `--advertise-refs` run's whole output, and whether git succeeded. */
  const advertisementOf = async (
    res: ServerResponse,
    route: SmartHttpRoute,
    service: GitService,
    path: string,
    protocol: string | undefined
  ): Promise<GitAnswer> => {
    const git = await startGit(service, path, protocol, true)
    const chunks: Array<Buffer> = []
    git.child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
    const stopWatching = watchIdle(git, undefined, res, route)
    const code = await git.exited.finally(stopWatching)
    if (code !== 0) reportError(new Error(`git ${service} --advertise-refs exited ${code}: ${git.stderr()}`), route)
    return { answer: Buffer.concat(chunks), complete: code === 0 }
  }

  const listings = options.listings ?? new KeptListings()
  const { capabilities, refs: refListings } = listings

  /**
   * An advertisement kept from before (ProtocolV2Capabilities, RefListings) is answered without a git
   * slot: only a git process takes one, so a fetch of nothing new is answered even while every slot
   * is busy.
   */
  const advertise = async (
    res: ServerResponse,
    route: SmartHttpRoute,
    service: GitService,
    path: string,
    protocol: string | undefined,
    signal: AbortSignal,
    client: string | undefined
  ) => {
    const inSlot = <A>(task: () => Promise<A>) => slots.run(task, signal, client)
    const made = () => inSlot(() => advertisementOf(res, route, service, path, protocol))
    if (service === "git-upload-pack" && protocol !== undefined && isProtocolV2(protocol)) {
      const remembered = await capabilities.of(path, protocol, async () => {
        const answer = await made()
        return answer.complete ? answer.answer : undefined
      })
      if (remembered !== undefined) {
        res.writeHead(200, { "Content-Type": `application/x-${service}-advertisement`, ...noCache })
        res.end(remembered)
        return
      }
    }
    if (protocol === undefined || !isProtocolV2(protocol)) {
      const listing = service === "git-upload-pack"
        ? await refListings.answer(path, protocol ?? "", ADVERTISEMENT, made)
        : await refListings.answer(path, protocol ?? "", RECEIVE_ADVERTISEMENT, async () => {
          const answer = await made()
          return { ...answer, complete: answer.complete && namesOwnRefsAlone(path) && ReceivePackAdvertisement.isReusable(answer.answer) }
        })
      res.writeHead(200, { "Content-Type": `application/x-${service}-advertisement`, ...noCache })
      res.end(Buffer.concat([preamble(service), listing]))
      return
    }
    return inSlot(async () => {
      const git = await startGit(service, path, protocol, true)
      res.writeHead(200, { "Content-Type": `application/x-${service}-advertisement`, ...noCache })
      git.child.stdout.pipe(res)
      const stopWatching = watchIdle(git, undefined, res, route)
      const code = await git.exited.finally(stopWatching)
      if (code !== 0) reportError(new Error(`git ${service} --advertise-refs exited ${code}: ${git.stderr()}`), route)
    })
  }

  /**
   * Streams the request body (`body`: its start read already, then the rest) into git and git's
   * output into the response; resolves when git is done.
   */
  const exchange = (
    req: IncomingMessage,
    res: ServerResponse,
    route: SmartHttpRoute,
    service: GitService,
    path: string,
    protocol: string | undefined,
    body: BodyStart,
    client: string | undefined
  ) => slots.run(() => exchangeInSlot(req, res, route, service, path, protocol, body), abortedWith(res), client)

  const exchangeInSlot = async (
    req: IncomingMessage,
    res: ServerResponse,
    route: SmartHttpRoute,
    service: GitService,
    path: string,
    protocol: string | undefined,
    body: BodyStart
  ) => {
    const git = await startGit(service, path, protocol, false)
    res.writeHead(200, { "Content-Type": `application/x-${service}-result`, ...noCache })
    // A client that goes away takes its git process with it.
    res.on("close", () => {
      if (!res.writableFinished) stopGit(git.child, service)
    })
    const sent = isGzipped(req)
      ? pipeline(restOf(body, req), createGunzip(), git.child.stdin)
      : body.ended
      ? endWith(git.child.stdin, body.head)
      : pipeline(restOf(body, req), git.child.stdin)
    const upload = sent.catch((error: unknown) => {
      // git stops reading once it has what it needs (EPIPE); a broken body ends the exchange.
      if (!(error instanceof Error && "code" in error && error.code === "EPIPE")) {
        stopGit(git.child, service)
        reportError(error, route)
      }
    })
    git.child.stdout.pipe(res, { end: false })
    const stopWatching = watchIdle(git, req, res, route, () => stopGit(git.child, service))
    const [code] = await Promise.all([git.exited, upload]).finally(stopWatching)
    if (code !== 0) reportError(new Error(`git ${service} exited ${code}: ${git.stderr()}`), route)
  }

  /** git's whole answer to a request it is given whole (`ls-refs`: small), in a slot. */
  const askGit = (res: ServerResponse, route: SmartHttpRoute, path: string, protocol: string, request: Buffer, client: string | undefined) =>
    slots.run(async (): Promise<GitAnswer> => {
      const git = await startGit("git-upload-pack", path, protocol, false)
      const chunks: Array<Buffer> = []
      git.child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
      const input = endWith(git.child.stdin, request).catch(() => undefined)
      const stopWatching = watchIdle(git, undefined, res, route)
      const [code] = await Promise.all([git.exited, input]).finally(stopWatching)
      if (code !== 0) reportError(new Error(`git git-upload-pack exited ${code}: ${git.stderr()}`), route)
      return { answer: Buffer.concat(chunks), complete: code === 0 }
    }, abortedWith(res), client)

  /**
   * A `git-upload-pack` request: its start (all of it, as git sends most) is read before it waits for
   * a slot (READ_FIRST_BYTES); a protocol v2 `ls-refs` is answered from memory when it can be.
   */
  const uploadPack = async (
    req: IncomingMessage,
    res: ServerResponse,
    route: SmartHttpRoute,
    path: string,
    protocol: string | undefined,
    client: string | undefined
  ) => {
    const body = await readStart(req, READ_FIRST_BYTES, idleTimeout)
    const plainV2 = protocol !== undefined && isProtocolV2(protocol) && req.headers["content-encoding"] === undefined
    if (!plainV2 || !body.ended || !isLsRefsRequest(body.head)) return exchange(req, res, route, "git-upload-pack", path, protocol, body, client)
    const answer = await refListings.answer(path, protocol, body.head, () => askGit(res, route, path, protocol, body.head, client))
    res.writeHead(200, { "Content-Type": "application/x-git-upload-pack-result", ...noCache })
    res.end(answer)
  }

  const receivePack = async (
    req: IncomingMessage,
    res: ServerResponse,
    route: SmartHttpRoute,
    path: string,
    protocol: string | undefined,
    pusher: number | undefined,
    grant: object | undefined,
    client: string | undefined
  ) => {
    const failed: Array<unknown> = []
    // Read before the write section and its slot: a pusher sending slowly holds neither meanwhile.
    const body = await readStart(req, READ_FIRST_BYTES, idleTimeout)
    if (isProbe(req, body)) {
      res.writeHead(200, { "Content-Type": "application/x-git-receive-pack-result", ...noCache })
      res.end()
      return
    }
    await writeSection({ owner: route.owner, repo: route.repo, path, grant }, async () => {
      // In the section nothing else pushes here, so the difference is exactly this push.
      const before = await snapshotOf(command, path)
      try {
        await exchange(req, res, route, "git-receive-pack", path, protocol, body, client)
      } finally {
        // Even when the client vanished mid-push, refs git did update must reach the caller.
        const after = await snapshotOf(command, path)
        const updates = diffRefs(before.refs, after.refs)
        listings.carry(path, before.snapshot, after.snapshot, updates)
        if (updates.length > 0) {
          await options.afterPush({ owner: route.owner, repo: route.repo, path, updates, refs: after.refs, pusher }).catch((error: unknown) => {
            failed.push(error)
            throw error
          })
        }
      }
    }).catch((error: unknown) => {
      // The push itself went through: its client is not told about a failed follow-up.
      if (!failed.includes(error)) throw error
    })
    for (const error of failed) reportError(error, route)
  }

  const serve = async (req: IncomingMessage, res: ServerResponse, clientAddress: string | undefined) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const route = parseSmartHttpPath(url.pathname)
    if (route === undefined) return plain(res, 404, "Not Found")

    let service: GitService
    if (route.action === "info/refs") {
      if (req.method !== "GET") return plain(res, 405, "Method Not Allowed", { Allow: "GET" })
      const requested = url.searchParams.get("service")
      if (requested !== "git-upload-pack" && requested !== "git-receive-pack") {
        // The dumb protocol is not served; every git since 1.6.6 asks for a service.
        return plain(res, 403, "Unsupported service: the dumb HTTP protocol is not served")
      }
      service = requested
    } else {
      if (req.method !== "POST") return plain(res, 405, "Method Not Allowed", { Allow: "POST" })
      service = route.action
      if (req.headers["content-type"] !== `application/x-${service}-request`) {
        return plain(res, 415, `Content-Type must be application/x-${service}-request`)
      }
    }

    const left = abortedWith(res)
    const decision = await options.authorize({
      owner: route.owner,
      repo: route.repo,
      service,
      credentials: parseBasic(req.headers.authorization),
      clientAddress: clientAddress ?? req.socket.remoteAddress,
      signal: left
    })
    switch (decision.kind) {
      case "unauthorized":
        return plain(res, 401, "Unauthorized", { "WWW-Authenticate": 'Basic realm="."' })
      case "account-refused":
        return plain(res, 401, decision.message)
      case "forbidden":
        return plain(res, 403, decision.message)
      case "not-found":
        return plain(res, 404, "Not Found")
      case "throttled":
        return plain(res, 429, "Too Many Requests", { "Retry-After": String(decision.retryAfterSeconds) })
      case "moved":
        return plain(res, 301, "Moved Permanently", { Location: `${options.basePath ?? ""}${movedPath(url, decision)}` })
      case "quota-exceeded":
        return plain(res, 413, "Quota exceeded")
      case "allowed":
        break
    }
    // Synchronous, as the ref reads are: a stat from the page cache, not a round trip through the thread pool.
    if (statSync(decision.path, { throwIfNoEntry: false })?.isDirectory() !== true) return plain(res, 404, "Not Found")

    const protocol = gitProtocol(req)
    const { client } = decision
    if (route.action === "info/refs") return advertise(res, route, service, decision.path, protocol, left, client)
    if (service === "git-upload-pack") return uploadPack(req, res, route, decision.path, protocol, client)
    return receivePack(req, res, route, decision.path, protocol, decision.pusher, decision.grant, client)
  }

  /** `clientAddress`: the client as a trusted reverse proxy named it; the connection's peer when absent. */
  return (req: IncomingMessage, res: ServerResponse, clientAddress?: string): void => {
    serve(req, res, clientAddress).then(
      () => {
        if (!res.writableEnded) res.end()
      },
      (error: unknown) => {
        // Every git slot taken and the queue full: the client is told to come back, nothing ran.
        if (error instanceof GitSlotsBusy && !res.headersSent) {
          return plain(res, 503, "Service Unavailable: too many git requests at once", { "Retry-After": String(error.retryAfterSeconds) })
        }
        const routeOf = () => parseSmartHttpPath(new URL(req.url ?? "/", "http://localhost").pathname) ?? { owner: "", repo: "" }
        if (error instanceof RequestBodyStalled) return reportError(error, routeOf())
        // A client that left while waiting for its sign-in or a slot: nothing to answer.
        if (res.destroyed) return
        reportError(error, routeOf())
        if (!res.headersSent) plain(res, 500, "Internal Server Error")
        else res.destroy()
      }
    )
  }
}
