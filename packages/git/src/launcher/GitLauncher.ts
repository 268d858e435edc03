/**
 * Starts git processes through a small launcher process (GitLauncherProcess.ts) instead of from
 * the server's own.
 *
 * Node starts a child by forking the process that asks, and the fork blocks the caller's event
 * loop while the kernel copies its memory map: measured here 1.5 ms for a 50 MB process, 6-15 ms
 * for 100-260 MB, and more when the CPUs are busy. The server forks git for every fetch and push,
 * so under load the forks alone held its event loop for a third of the time (a CPU profile of the
 * mixed benchmark at 8,000 users: `spawn` 37 % of busy time). The launcher is small, so its forks
 * are cheap, and they do not stop the server.
 *
 * Data does not pass through the launcher: for each start it connects to a Unix socket of this
 * process and gives that connection to git as stdin and stdout. The socket lies in a directory only
 * this user can enter, and a connection names its start by a random key, so no other local process
 * can stand in for a git. Here the connection is the
 * process's `stdin` (ending it is git's end of input) and `stdout`; git's stderr arrives with its
 * exit. When the launcher cannot be started, processes are started directly.
 */
import { type ChildProcess, fork, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { EventEmitter } from "node:events"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough, type Readable, type Writable } from "node:stream"

/** What callers use of a started git: the subset of ChildProcess they need. */
export interface GitProcess extends EventEmitter {
  readonly stdin: Writable
  readonly stdout: Readable
  readonly stderr: Readable
  kill(signal?: NodeJS.Signals): void
}

type LauncherMessage =
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Started"; readonly id: number; readonly pid: number }
  | { readonly _tag: "Failed"; readonly id: number; readonly message: string }
  | {
    readonly _tag: "Exited"
    readonly id: number
    readonly code: number | null
    readonly signal: NodeJS.Signals | null
    readonly stderr: string
  }

/**
 * A start's connection opens with its key: a random UUID's hex digits (122 random bits), which no
 * other local process can know. `randomUUID` draws from a cached batch of random bytes: one start
 * apart from the next (event loop turns between them) it took ~18 µs here, `randomBytes(16)` ~46 µs.
 */
const KEY_BYTES = 32

const newKey = (): string => randomUUID().replaceAll("-", "")

// Run from source the launcher is GitLauncherProcess.ts; in the server's bundle it is
// GitLauncherProcess.js beside the chunk holding this module.
const launcherUrl = new URL(import.meta.url.endsWith(".ts") ? "./GitLauncherProcess.ts" : "./GitLauncherProcess.js", import.meta.url)

/** git went away while its input was still being sent: the error a pipe would give. */
const closedInput = () => Object.assign(new Error("git closed its input"), { code: "EPIPE" })

/** A git started through the launcher: `spawn` once both its start and its connection arrived, `close` once it exited and its output ended. */
class LaunchedGit extends EventEmitter implements GitProcess {
  readonly stderr = new PassThrough()
  // Until the connection arrives, input waits in `stdin` and `stdout` has nothing.
  readonly stdin = new PassThrough()
  readonly stdout = new PassThrough()
  readonly #kill: (signal: NodeJS.Signals) => void
  #socket: Socket | undefined
  #started = false
  #exit: { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined
  #outputEnded = false
  #socketClosed = false
  #spawned = false
  #failed = false

  constructor(kill: (signal: NodeJS.Signals) => void) {
    super()
    this.#kill = kill
    this.stdout.once("end", () => {
      this.#outputEnded = true
      this.#closeWhenDone()
    })
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): void {
    this.#kill(signal)
  }

  connected(socket: Socket): void {
    this.#socket = socket
    socket.on("error", () => this.stdin.destroy(closedInput()))
    // Input that ends, or is given up (a dropped client), is git's end of input: the processes git
    // hands its input to (unpack-objects, index-pack) hold the connection too and must see it end.
    if (this.stdin.destroyed) socket.end()
    else this.stdin.once("close", () => socket.end())
    this.stdin.pipe(socket)
    socket.pipe(this.stdout)
    socket.once("close", () => {
      this.#socketClosed = true
      this.#discardUnread()
    })
    this.#spawnWhenReady()
  }

  started(): void {
    this.#started = true
    this.#spawnWhenReady()
  }

  failed(message: string): void {
    if (this.#failed) return
    if (this.#exit !== undefined) {
      // Exited, and its connection will not come now: it closes without the output.
      if (this.#socket === undefined) this.stdout.end()
      return
    }
    if (!this.#spawned) {
      this.#failed = true
      this.#socket?.destroy()
      this.emit("error", new Error(`git could not be started: ${message}`))
      return
    }
    // Lost after it started (the launcher died): an exit without a code, as a killed process's.
    this.#socket?.unpipe(this.stdout)
    this.#socket?.destroy()
    this.stdout.end()
    this.exited(null, null, message)
  }

  get isConnected(): boolean {
    return this.#socket !== undefined
  }

  get hasExited(): boolean {
    return this.#exit !== undefined
  }

  exited(code: number | null, signal: NodeJS.Signals | null, stderr: string): void {
    this.#exit = { code, signal }
    this.stderr.end(stderr)
    this.#discardUnread()
    this.#closeWhenDone()
  }

  /**
   * Once git exited and its output is all here, output nobody reads (never read, or its reader
   * dropped it and paused) is discarded so that `close` can come, as Node does for a ChildProcess's
   * stdio. Looked at a turn later: a reader attached right after `spawn` is attached by then.
   */
  #discardUnread(): void {
    if (this.#exit === undefined || !this.#socketClosed) return
    setImmediate(() => {
      if (!this.stdout.readableEnded && this.stdout.readableFlowing !== true) this.stdout.resume()
    })
  }

  #spawnWhenReady(): void {
    if (this.#spawned || !this.#started || this.#socket === undefined) return
    this.#spawned = true
    this.emit("spawn")
  }

  #closeWhenDone(): void {
    if (this.#exit !== undefined && this.#outputEnded && !this.#failed) this.emit("close", this.#exit.code, this.#exit.signal)
  }
}

class Launcher {
  readonly child: ChildProcess
  readonly server: Server
  /** A directory only this user can enter (mkdtemp's 0700), holding the socket. */
  readonly directory: string
  readonly socketPath: string
  readonly #pending = new Map<number, LaunchedGit>()
  /** Key of each pending start's connection → its id. */
  readonly #keys = new Map<string, number>()
  #nextId = 0

  private constructor(child: ChildProcess, server: Server, directory: string) {
    this.child = child
    this.server = server
    this.directory = directory
    this.socketPath = join(directory, "git.sock")
    child.on("message", (message: LauncherMessage) => {
      if (message._tag === "Ready") return
      const git = this.#pending.get(message.id)
      if (git === undefined) return
      if (message._tag === "Started") git.started()
      else if (message._tag === "Failed") {
        this.#untrack(message.id)
        for (const [key, id] of this.#keys) if (id === message.id) this.#keys.delete(key)
        git.failed(message.message)
      } else {
        // A quick git can exit before its connection is taken here: it stays pending for it, as
        // its output is in that connection.
        if (git.isConnected) this.#untrack(message.id)
        git.exited(message.code, message.signal, message.stderr)
      }
    })
    server.on("connection", (socket) => this.#identify(socket))
    child.once("exit", () => this.#lost())
  }

  static start(): Promise<Launcher> {
    const directory = mkdtempSync(join(tmpdir(), "kiln-git-"))
    const server = createServer()
    return new Promise<Launcher>((resolve, reject) => {
      server.once("error", (error) => {
        rmSync(directory, { recursive: true, force: true })
        reject(error)
      })
      server.listen(join(directory, "git.sock"), () => {
        const child = fork(launcherUrl, [directory], { stdio: ["ignore", "ignore", "inherit", "ipc"], execArgv: [], serialization: "json" })
        const launcher = new Launcher(child, server, directory)
        process.once("exit", () => rmSync(directory, { recursive: true, force: true }))
        child.once("error", (error) => {
          launcher.close()
          reject(error)
        })
        child.once("message", () => {
          // Only a start under way keeps this process alive (Launcher.#track), not the launcher itself.
          child.unref()
          child.channel?.unref()
          server.unref()
          resolve(launcher)
        })
      })
    })
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && this.child.connected
  }

  start(command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): GitProcess {
    const id = ++this.#nextId
    const git = new LaunchedGit((signal) => {
      if (this.alive) this.child.send({ _tag: "Kill", id, signal })
    })
    const key = newKey()
    this.#track(id, git)
    this.#keys.set(key, id)
    this.child.send({ _tag: "Start", id, key, command, args, env, socketPath: this.socketPath })
    return git
  }

  close(): void {
    this.child.kill()
    this.server.close()
    rmSync(this.directory, { recursive: true, force: true })
  }

  /**
   * A start waits on the launcher's messages and connection, which the event loop would not wait
   * for once unreferenced: a command-line run awaiting git would end early. So the channel is
   * referenced exactly while a start is pending.
   */
  #track(id: number, git: LaunchedGit): void {
    if (this.#pending.size === 0) this.child.channel?.ref()
    this.#pending.set(id, git)
  }

  #untrack(id: number): void {
    if (!this.#pending.delete(id) || this.#pending.size > 0) return
    this.child.channel?.unref()
  }

  /** Reads the start's name off a new connection, then hands the connection to its git. */
  #identify(socket: Socket): void {
    socket.on("error", () => socket.destroy())
    const onReadable = () => {
      const header: Buffer | null = socket.read(KEY_BYTES)
      if (header === null) return
      socket.off("readable", onReadable)
      const key = header.toString("latin1")
      const id = this.#keys.get(key)
      this.#keys.delete(key)
      const git = id === undefined ? undefined : this.#pending.get(id)
      if (id === undefined || git === undefined) return socket.destroy()
      git.connected(socket)
      if (git.hasExited) this.#untrack(id)
    }
    socket.on("readable", onReadable)
  }

  /** The launcher died: what it had started is reported failed (its gits, orphaned, end with their connections). */
  #lost(): void {
    for (const [id, git] of this.#pending) {
      this.#untrack(id)
      git.failed("the git launcher exited")
    }
    this.#keys.clear()
    this.server.close()
    rmSync(this.directory, { recursive: true, force: true })
  }
}

let launcher: Promise<Launcher | undefined> | undefined

const directly = (command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): GitProcess =>
  spawn(command, [...args], { env, stdio: "pipe" })

/**
 * Starts `command` (git) with `args` and exactly `env`, through the launcher when it runs. The
 * result emits `spawn`, `error` and `close` (code, signal) as a ChildProcess does.
 */
export const startGit = async (command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): Promise<GitProcess> => {
  launcher ??= Launcher.start().catch(() => undefined)
  let running = await launcher
  if (running !== undefined && !running.alive) {
    launcher = Launcher.start().catch(() => undefined)
    running = await launcher
  }
  return running === undefined ? directly(command, args, env) : running.start(command, args, env)
}
