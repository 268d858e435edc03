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
 * process and gives that connection to git as stdin and stdout. Here the connection is the
 * process's `stdin` (ending it is git's end of input) and `stdout`; git's stderr arrives with its
 * exit. When the launcher cannot be started, processes are started directly.
 */
import { type ChildProcess, fork, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { EventEmitter } from "node:events"
import { rmSync } from "node:fs"
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

const HEADER_BYTES = 12

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
    // Output no one reads any more (its destination was dropped) still has to end for `close`.
    socket.once("close", () => {
      if (!this.stdout.readableEnded && this.stdout.readableFlowing !== true) this.stdout.resume()
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
    this.#closeWhenDone()
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
  readonly socketPath: string
  readonly #pending = new Map<number, LaunchedGit>()
  #nextId = 0

  private constructor(child: ChildProcess, server: Server, socketPath: string) {
    this.child = child
    this.server = server
    this.socketPath = socketPath
    child.on("message", (message: LauncherMessage) => {
      if (message._tag === "Ready") return
      const git = this.#pending.get(message.id)
      if (git === undefined) return
      if (message._tag === "Started") git.started()
      else if (message._tag === "Failed") {
        this.#pending.delete(message.id)
        git.failed(message.message)
      } else {
        // A quick git can exit before its connection is taken here: it stays pending for it, as
        // its output is in that connection.
        if (git.isConnected) this.#pending.delete(message.id)
        git.exited(message.code, message.signal, message.stderr)
      }
    })
    server.on("connection", (socket) => this.#identify(socket))
    child.once("exit", () => this.#lost())
  }

  static start(): Promise<Launcher> {
    const socketPath = join(tmpdir(), `kiln-git-${process.pid}-${randomBytes(4).toString("hex")}.sock`)
    const server = createServer()
    return new Promise<Launcher>((resolve, reject) => {
      server.once("error", reject)
      server.listen(socketPath, () => {
        const child = fork(launcherUrl, [], { stdio: ["ignore", "ignore", "inherit", "ipc"], execArgv: [], serialization: "json" })
        const launcher = new Launcher(child, server, socketPath)
        child.once("error", (error) => {
          launcher.close()
          reject(error)
        })
        child.once("message", () => {
          // Neither keeps the server's process alive.
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
    this.#pending.set(id, git)
    this.child.send({ _tag: "Start", id, command, args, env, socketPath: this.socketPath })
    return git
  }

  close(): void {
    this.child.kill()
    this.server.close()
    rmSync(this.socketPath, { force: true })
  }

  /** Reads the start's name off a new connection, then hands the connection to its git. */
  #identify(socket: Socket): void {
    socket.on("error", () => socket.destroy())
    const onReadable = () => {
      const header: Buffer | null = socket.read(HEADER_BYTES)
      if (header === null) return
      socket.off("readable", onReadable)
      const id = Number(header.toString("latin1"))
      const git = this.#pending.get(id)
      if (git === undefined) return socket.destroy()
      git.connected(socket)
      if (git.hasExited) this.#pending.delete(id)
    }
    socket.on("readable", onReadable)
  }

  /** The launcher died: what it had started is reported failed (its gits, orphaned, end with their connections). */
  #lost(): void {
    for (const [id, git] of this.#pending) {
      this.#pending.delete(id)
      git.failed("the git launcher exited")
    }
    this.server.close()
    rmSync(this.socketPath, { force: true })
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
