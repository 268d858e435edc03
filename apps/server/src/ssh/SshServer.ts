/**
 * Kiln's built-in SSH server (Forgejo's START_SSH_SERVER), on `ssh2`: public-key authentication
 * only, with the keys of accounts and deploy keys (a lookup is kept while the access version it was
 * read at holds: KeptKeyLookups);
 * sessions may only `exec` git's services (and git-lfs-authenticate), through GitSessions. No
 * shell, pty, subsystem, forwarding of any kind or environment other than GIT_PROTOCOL.
 *
 * Limits: connections not yet signed in are bounded overall and per address (more wait, up to a
 * bound, then are closed at once) and get KILN_SSH_AUTH_TIMEOUT seconds to sign in; a signed-in connection running nothing
 * is closed after the git idle timeout, and git itself is stopped when nothing moves through it.
 * Stopping (SIGTERM) closes the listener and idle connections, lets running git sessions finish up
 * to KILN_SHUTDOWN_TIMEOUT, then closes what is left. Protocol errors of a client only ever close
 * its connection.
 */
import { createHash } from "node:crypto"
import { createServer, type Server as NetServer, type Socket } from "node:net"
import { Effect, Layer, Option } from "effect"
import type { AuthContext, Channel, Connection, ServerChannel, Session } from "ssh2"
import ssh2 from "ssh2"
import { DataChanges } from "@kiln/domain/changes/DataChanges"
import { type SshIdentity, SshIdentities } from "@kiln/domain/ssh/SshIdentities"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ServerMetrics } from "../metrics/ServerMetrics.ts"
import * as GitSessions from "./GitSessions.ts"
import type { SignedIn } from "./GitSessions.ts"
import { loadHostKeys } from "./HostKeys.ts"
import { type KeyLookup, makeKeptKeyLookups } from "./KeptKeyLookups.ts"

/** Authentication requests one connection may make (OpenSSH's MaxAuthTries is 6; keys are tried in turn). */
const MAX_AUTH_ATTEMPTS = 20
/** Sessions open at once on one connection (OpenSSH's MaxSessions). */
const MAX_SESSIONS_PER_CONNECTION = 10
/**
 * Sessions one connection may close without having run anything: git's clients never do. ssh2 keeps
 * such a session for the connection's life, and each close restarted the idle timer: opening and
 * closing them grew the server by ~1.6 KB each, and the connection never went idle.
 */
const MAX_UNUSED_SESSIONS = 10

/** The receive window ssh2 keeps for a channel (what the client may still send): `incoming.window`. */
const receiveWindow = (channel: Channel): number | undefined => {
  const incoming = channel.incoming
  return typeof incoming === "object" && incoming !== null && "window" in incoming && typeof incoming.window === "number"
    ? incoming.window
    : undefined
}

/**
 * Ends `client`'s connection when it sends on `channel` past the window it was given. ssh2 checks only
 * for a window of exactly 0 and buffers whatever comes: a client ignoring flow control on a channel
 * whose git was not reading yet grew the server by gigabytes. ssh2 takes the data off the window
 * before it pushes it, so a push under a negative window is such data; it is dropped, and the
 * connection ended, as Go's x/crypto/ssh ends it ("remote side wrote too much").
 */
const enforceReceiveWindow = (client: Connection, channel: ServerChannel) => {
  const push = channel.push.bind(channel)
  channel.push = (chunk: unknown, encoding?: BufferEncoding) => {
    const window = receiveWindow(channel)
    if (chunk !== null && window !== undefined && window < 0) {
      client.end()
      return false
    }
    return push(chunk, encoding)
  }
}

/** `SHA256:<unpadded base64>` of a key blob, as stored. */
const blobFingerprint = (blob: Buffer): string =>
  `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`

interface ConnectionState {
  readonly socket: Socket
  readonly address: string
  authenticated: boolean
  authTimer: ReturnType<typeof setTimeout> | undefined
  idleTimer: ReturnType<typeof setTimeout> | undefined
  client: Connection | undefined
  readonly running: Set<AbortController>
  sessions: number
  /** Sessions closed without having run anything (MAX_UNUSED_SESSIONS). */
  unusedSessions: number
}

export const make = Effect.gen(function*() {
  const config = yield* KilnConfig
  const identities = yield* SshIdentities
  const changes = yield* Effect.serviceOption(DataChanges)
  // An identity depends on keys and accounts, never on a repository's contents (which every push moves).
  const accessVersion = () => Option.isSome(changes) ? changes.value.accessVersion() : undefined
  const sessions = yield* GitSessions.make
  const metrics = yield* Effect.serviceOption(ServerMetrics)
  const hostKeys = yield* loadHostKeys({ dataDir: config.dataDir, paths: config.ssh.hostKeys })
  const services = yield* Effect.context<never>()
  const run = <A>(effect: Effect.Effect<A>) => Effect.runPromiseWith(services)(effect)
  const log = (message: string, detail?: unknown) => void run(Effect.logWarning(message, ...(detail === undefined ? [] : [detail])))
  const settings = config.ssh
  const idleMillis = config.gitIdleTimeoutSeconds * 1000

  const connections = new Set<ConnectionState>()
  const byPeer = new Map<string, ConnectionState>()
  const unauthenticatedPerAddress = new Map<string, number>()
  let unauthenticated = 0
  let stopping = false

  const countConnection = (outcome: string) => Option.map(metrics, (m) => m.sshConnections.inc({ outcome }))
  const countSession = (kind: string) => Option.map(metrics, (m) => m.sshSessions.inc({ kind }))

  const leaveUnauthenticated = (state: ConnectionState) => {
    unauthenticated -= 1
    const left = (unauthenticatedPerAddress.get(state.address) ?? 1) - 1
    if (left <= 0) unauthenticatedPerAddress.delete(state.address)
    else unauthenticatedPerAddress.set(state.address, left)
  }

  /** A signed-in connection that runs nothing is closed after the idle timeout (and at once when stopping). */
  const watchIdle = (state: ConnectionState) => {
    if (state.idleTimer !== undefined) clearTimeout(state.idleTimer)
    state.idleTimer = undefined
    if (state.running.size > 0) return
    if (stopping) {
      // Once its channels closed: an exited git's last output may still be on its way.
      if (state.sessions === 0) state.client?.end()
      return
    }
    if (idleMillis > 0) state.idleTimer = setTimeout(() => state.client?.end(), idleMillis)
  }

  const ssh = new ssh2.Server({
    hostKeys: [...hostKeys],
    ident: "Kiln",
    // OpenSSH's client asks for chacha20-poly1305 first, which ssh2 runs in JavaScript without its
    // optional native binding: offering only AES (OpenSSL's, accelerated) keeps a clone's
    // encryption off the event loop's CPU.
    algorithms: { cipher: ["aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr"] }
  })

  const lookUp = makeKeptKeyLookups((fingerprint) => run(identities.byFingerprint(fingerprint)), accessVersion)

  const authenticate = (state: ConnectionState, client: Connection) => {
    let attempts = 0
    // The identity whose signature was checked last, and the access version it was read at; each
    // command reads the key again once anything has changed since (GitSessions.serveKey).
    let identity: SignedIn | undefined
    // A client offers a key, then signs with it: the second attempt takes the first one's lookup.
    let offered: (KeyLookup<Option.Option<SshIdentity>> & { readonly fingerprint: string }) | undefined
    client.on("authentication", (ctx: AuthContext) => {
      attempts += 1
      if (attempts > MAX_AUTH_ATTEMPTS) {
        countConnection("refused")
        client.end()
        return
      }
      if (ctx.method !== "publickey" || ctx.username !== settings.user) {
        ctx.reject(["publickey"])
        return
      }
      const { key, signature, blob, hashAlgo } = ctx
      const fingerprint = blobFingerprint(key.data)
      // The version before the read: a change committed while it runs moves past it.
      if (offered?.fingerprint !== fingerprint) offered = { fingerprint, ...lookUp(fingerprint) }
      const { version } = offered
      offered.found.then((found) => {
        if (Option.isNone(found)) return ctx.reject(["publickey"])
        // Without a signature the client only asks whether the key would do.
        if (signature === undefined || blob === undefined) return ctx.accept()
        const parsed = ssh2.utils.parseKey(key.data)
        const publicKey = parsed instanceof Error ? undefined : Array.isArray(parsed) ? parsed[0] : parsed
        if (publicKey === undefined || publicKey.verify(blob, signature, hashAlgo) !== true) return ctx.reject(["publickey"])
        identity = { identity: found.value, version }
        ctx.accept()
      }).catch((error: unknown) => {
        log("SSH key lookup failed", error)
        ctx.reject(["publickey"])
      })
    })
    client.on("ready", () => {
      if (identity === undefined) return client.end()
      state.authenticated = true
      leaveUnauthenticated(state)
      admitWaiting()
      if (state.authTimer !== undefined) clearTimeout(state.authTimer)
      countConnection("authenticated")
      const signedIn = identity
      client.on("session", (accept, reject) => {
        if (stopping || state.sessions >= MAX_SESSIONS_PER_CONNECTION) return reject()
        state.sessions += 1
        const session = accept()
        const served = serveSession(state, client, session, signedIn)
        session.once("close", () => {
          state.sessions -= 1
          if (!served.started()) {
            // Nothing ran: the idle timer runs on, and a connection that keeps doing this is ended.
            state.unusedSessions += 1
            if (state.unusedSessions >= MAX_UNUSED_SESSIONS) client.end()
            return
          }
          watchIdle(state)
        })
      })
      watchIdle(state)
    })
  }

  const refuseRequest = (_accept: unknown, reject: (() => void) | undefined) => reject?.()

  /** One session channel: GIT_PROTOCOL may be set, then one `exec`; everything else is refused. */
  const serveSession = (state: ConnectionState, client: Connection, session: Session, signedIn: SignedIn) => {
    let protocol: string | undefined
    session.on("env", (accept, reject, info) => {
      if (info.key === "GIT_PROTOCOL" && GitSessions.acceptedGitProtocol(info.val) !== undefined) {
        protocol = info.val
        accept?.()
      } else {
        reject?.()
      }
    })
    session.on("pty", refuseRequest)
    session.on("x11", refuseRequest)
    session.on("auth-agent", refuseRequest)
    session.on("window-change", refuseRequest)
    session.on("signal", refuseRequest)
    session.on("subsystem", refuseRequest)
    session.on("sftp", refuseRequest)
    let started = false
    const once = (reject: () => void) => {
      if (started) {
        reject()
        return false
      }
      started = true
      return true
    }
    session.on("shell", (accept, reject) => {
      if (!once(reject)) return
      const channel = accept()
      countSession("refused")
      channel.stderr.write("Kiln: Hi there! You've successfully authenticated, but Kiln does not provide shell access.\n")
      channel.exit(1)
      channel.end()
    })
    session.on("exec", (accept, reject, info) => {
      if (!once(reject)) return
      const channel = accept()
      enforceReceiveWindow(client, channel)
      void execute(state, channel, signedIn, info.command, protocol)
    })
    return { started: () => started }
  }

  const execute = async (state: ConnectionState, channel: ServerChannel, signedIn: SignedIn, command: string, protocol: string | undefined) => {
    const controller = new AbortController()
    state.running.add(controller)
    watchIdle(state)
    channel.once("close", () => controller.abort())
    channel.on("error", () => controller.abort())
    Option.map(metrics, (m) => m.sshSessionsInProgress.inc())
    let code = 1
    try {
      countSession(command.startsWith("git-lfs-authenticate") ? "lfs" : command.startsWith("git-") ? "git" : "refused")
      // The key as it is now: deleted, or its account disabled, since the connection signed in.
      code = await sessions.serveKey(signedIn.identity.key.id, command, protocol, {
        input: channel,
        output: channel,
        errors: channel.stderr,
        signal: controller.signal
      }, signedIn)
    } catch (error) {
      log("SSH command failed", error)
      channel.stderr.write("Kiln: Internal error\n")
      code = 1
    } finally {
      Option.map(metrics, (m) => m.sshSessionsInProgress.dec())
      state.running.delete(controller)
      if (!controller.signal.aborted) {
        channel.exit(code)
        channel.end()
      }
      watchIdle(state)
    }
  }

  ssh.on("connection", (client, info) => {
    const state = byPeer.get(`${info.ip}|${info.port}`)
    if (state === undefined) {
      client.end()
      return
    }
    state.client = client
    client.on("error", () => {
      // A client's protocol or socket error closes its connection only.
      state.socket.destroy()
    })
    client.on("tcpip", refuseRequest)
    client.on("openssh.streamlocal", refuseRequest)
    client.on("request", refuseRequest)
    authenticate(state, client)
  })
  ssh.on("error", (error: unknown) => log("SSH server error", error))

  /**
   * Connections over the bounds wait (unread: the client's key exchange waits with them) until one
   * signed in or went, within their sign-in time; the waiting are bounded too (four times the
   * bounds), past which a connection is closed at once. A burst of a CI's parallel pushes waits its
   * turn; a flood of connections that never sign in holds a bounded number of sockets.
   */
  const waiting: Array<{ readonly socket: Socket; readonly address: string; readonly timer: ReturnType<typeof setTimeout> }> = []
  const waitingFrom = (address: string) => waiting.filter((entry) => entry.address === address).length
  const fits = (address: string) =>
    unauthenticated < settings.maxUnauthenticated &&
    (unauthenticatedPerAddress.get(address) ?? 0) < settings.maxUnauthenticatedPerAddress

  const admitWaiting = () => {
    for (let index = 0; index < waiting.length;) {
      const entry = waiting[index]
      if (entry !== undefined && fits(entry.address)) {
        waiting.splice(index, 1)
        clearTimeout(entry.timer)
        if (!entry.socket.destroyed) admit(entry.socket, entry.address)
      } else {
        index += 1
      }
    }
  }

  const admit = (socket: Socket, address: string) => {
    const state: ConnectionState = {
      socket,
      address,
      authenticated: false,
      authTimer: undefined,
      idleTimer: undefined,
      client: undefined,
      running: new Set(),
      sessions: 0,
      unusedSessions: 0
    }
    unauthenticated += 1
    unauthenticatedPerAddress.set(address, (unauthenticatedPerAddress.get(address) ?? 0) + 1)
    connections.add(state)
    const peer = `${address}|${socket.remotePort}`
    byPeer.set(peer, state)
    state.authTimer = setTimeout(() => {
      countConnection("timeout")
      socket.destroy()
    }, settings.authTimeoutSeconds * 1000)
    socket.once("close", () => {
      if (state.authTimer !== undefined) clearTimeout(state.authTimer)
      if (state.idleTimer !== undefined) clearTimeout(state.idleTimer)
      if (!state.authenticated) leaveUnauthenticated(state)
      for (const controller of state.running) controller.abort()
      connections.delete(state)
      byPeer.delete(peer)
      admitWaiting()
    })
    ssh.injectSocket(socket)
  }

  const onSocket = (socket: Socket) => {
    const address = socket.remoteAddress ?? "unknown"
    socket.on("error", () => socket.destroy())
    if (stopping) {
      socket.destroy()
      return
    }
    if (fits(address)) return admit(socket, address)
    if (
      waiting.length >= settings.maxUnauthenticated * 4 ||
      waitingFrom(address) >= settings.maxUnauthenticatedPerAddress * 4
    ) {
      countConnection("limited")
      socket.destroy()
      return
    }
    const entry = {
      socket,
      address,
      timer: setTimeout(() => {
        countConnection("timeout")
        socket.destroy()
      }, settings.authTimeoutSeconds * 1000)
    }
    waiting.push(entry)
    socket.once("close", () => {
      clearTimeout(entry.timer)
      const index = waiting.indexOf(entry)
      if (index >= 0) waiting.splice(index, 1)
    })
  }

  // ssh2 writes a packet at a time: with Nagle's algorithm each write after the first waited for the
  // client's delayed ACK, ~40 ms, about seven times per connection (a git operation over SSH took
  // ~400 ms of wall time, ~300 of them waiting). OpenSSH's sshd sets TCP_NODELAY too.
  const listener: NetServer = createServer({ noDelay: true }, onSocket)

  const listen = (port: number, host: string) =>
    new Promise<{ readonly port: number }>((resolve, reject) => {
      listener.once("error", reject)
      listener.listen(port, host, () => {
        listener.off("error", reject)
        const address = listener.address()
        resolve({ port: typeof address === "object" && address !== null ? address.port : port })
      })
    })

  /** Stops accepting, lets running git sessions finish for up to `timeoutMillis`, then closes everything. */
  const close = async (timeoutMillis: number) => {
    stopping = true
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()))
    for (const entry of waiting.splice(0)) entry.socket.destroy()
    for (const state of connections) {
      if (!state.authenticated) state.socket.destroy()
      else watchIdle(state)
    }
    const deadline = Date.now() + timeoutMillis
    while (connections.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    for (const state of connections) state.socket.destroy()
    for (const entry of waiting.splice(0)) entry.socket.destroy()
    await closed
  }

  return { listen, close }
})

/** The built-in SSH server, when KILN_SSH_PORT is not 0; stopped with the server. */
export const layer = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* KilnConfig
  if (config.ssh.port === 0) return
  const server = yield* make
  const { port } = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () => server.listen(config.ssh.port, config.ssh.host),
      catch: (cause) => new Error(`SSH server cannot listen on ${config.ssh.host}:${config.ssh.port}: ${cause instanceof Error ? cause.message : String(cause)}`)
    }),
    () => Effect.promise(() => server.close(config.shutdownTimeout * 1000))
  )
  yield* Effect.logInfo(`SSH listening on ${config.ssh.host}:${port}`)
}))
