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
 * exit. The launcher is the Python program where python3 runs (it starts git with posix_spawn, which
 * copies no memory: a fraction of a fork's CPU on either side), else the Perl one (its forks cost a
 * fraction of Node's), else the Node one; when none can be started, processes are started directly.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { EventEmitter } from "node:events"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server, Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough, type Readable, type Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import { encodeRequest, isSignal, type Reply, ReplyReader } from "./LauncherProtocol.ts"

/** What callers use of a started git: the subset of ChildProcess they need. */
export interface GitProcess extends EventEmitter {
  readonly stdin: Writable
  readonly stdout: Readable
  readonly stderr: Readable
  kill(signal?: NodeJS.Signals): void
}

/** A launcher's program: the command running it, and its arguments before the socket directory. */
export interface LauncherProgram {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

// Run from source the programs lie beside this module; in the server's bundle, beside the chunk
// holding it.
const beside = (name: string) => fileURLToPath(new URL(name, import.meta.url))

/** Isolated (-I: no PYTHON* variables, no user site) and without `site` (-S): it starts sooner. */
export const pythonLauncher: LauncherProgram = { command: "python3", args: ["-I", "-S", beside("./GitLauncherProcess.py")] }

export const perlLauncher: LauncherProgram = { command: "perl", args: [beside("./GitLauncherProcess.pl")] }

export const nodeLauncher: LauncherProgram = {
  command: process.execPath,
  args: [beside(import.meta.url.endsWith(".ts") ? "./GitLauncherProcess.ts" : "./GitLauncherProcess.js")]
}

/**
 * A start's connection opens with its key: a random UUID's hex digits (122 random bits), which no
 * other local process can know. `randomUUID` draws from a cached batch of random bytes: one start
 * apart from the next (event loop turns between them) it took ~18 µs here, `randomBytes(16)` ~46 µs.
 */
const KEY_BYTES = 32

const newKey = (): string => randomUUID().replaceAll("-", "")

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
      // A git that exits leaving input unread (upload-pack refusing a `want`) resets the connection:
      // it closes with an error and no end, and its output must end all the same, or the request
      // waits for the idle timeout. What git wrote before it exited is read ahead of the reset.
      if (!this.stdout.writableEnded) this.stdout.end()
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

  exited(code: number | null, signal: NodeJS.Signals | null, stderr: string | Buffer): void {
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
  #ended = false
  readonly #onReady: () => void

  private constructor(child: ChildProcess, server: Server, directory: string, onReady: () => void) {
    this.child = child
    this.server = server
    this.directory = directory
    this.socketPath = join(directory, "git.sock")
    this.#onReady = onReady
    const replies = new ReplyReader()
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const reply of replies.push(chunk)) this.#receive(reply)
    })
    child.stdout?.once("end", () => {
      this.#ended = true
    })
    // A launcher that died is seen by its exit; what could not reach it is its loss.
    child.on("error", () => undefined)
    child.stdin?.on("error", () => undefined)
    server.on("connection", (socket) => this.#identify(socket))
    child.once("exit", () => this.#lost())
  }

  #receive(reply: Reply): void {
    if (reply._tag === "Ready") return this.#onReady()
    const git = this.#pending.get(reply.id)
    if (git === undefined) return
    if (reply._tag === "Started") git.started()
    else if (reply._tag === "Failed") {
      this.#untrack(reply.id)
      for (const [key, id] of this.#keys) if (id === reply.id) this.#keys.delete(key)
      git.failed(reply.message)
    } else {
      // A quick git can exit before its connection is taken here: it stays pending for it, as
      // its output is in that connection.
      if (git.isConnected) this.#untrack(reply.id)
      git.exited(reply.code, isSignal(reply.signal) ? reply.signal : null, reply.stderr)
    }
  }

  static start(program: LauncherProgram): Promise<Launcher> {
    const directory = mkdtempSync(join(tmpdir(), "kiln-git-"))
    const server = createServer()
    return new Promise<Launcher>((resolve, reject) => {
      server.once("error", (error) => {
        rmSync(directory, { recursive: true, force: true })
        reject(error)
      })
      server.listen(join(directory, "git.sock"), () => {
        const child = spawn(program.command, [...program.args, directory], { stdio: ["pipe", "pipe", "inherit"] })
        const fail = (error: Error) => {
          launcher.close()
          reject(error)
        }
        const exited = (code: number | null, signal: NodeJS.Signals | null) =>
          fail(new Error(`the git launcher exited before it was ready (${code ?? signal})`))
        const launcher: Launcher = new Launcher(child, server, directory, () => {
          child.off("error", fail)
          child.off("exit", exited)
          // Only a start under way keeps this process alive (Launcher.#track), not the launcher itself.
          child.unref()
          launcher.#reference(false)
          server.unref()
          resolve(launcher)
        })
        process.once("exit", () => rmSync(directory, { recursive: true, force: true }))
        child.once("error", fail)
        child.once("exit", exited)
      })
    })
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && !this.#ended
  }

  start(command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): GitProcess {
    const id = ++this.#nextId
    const key = newKey()
    const request = encodeRequest({ _tag: "Start", id, key, command, args, env })
    // As Node's spawn refuses it.
    if (request === undefined) throw new TypeError(`an argument or environment entry of ${command} holds a NUL byte`)
    const git = new LaunchedGit((signal) => {
      if (this.alive) this.child.stdin?.write(encodeRequest({ _tag: "Kill", id, signal }) ?? "")
    })
    this.#track(id, git)
    this.#keys.set(key, id)
    this.child.stdin?.write(request)
    return git
  }

  close(): void {
    this.child.kill()
    this.server.close()
    rmSync(this.directory, { recursive: true, force: true })
  }

  /**
   * A start waits on the launcher's replies and connection, which the event loop would not wait
   * for once unreferenced: a command-line run awaiting git would end early. So the launcher's
   * output is referenced exactly while a start is pending.
   */
  #track(id: number, git: LaunchedGit): void {
    if (this.#pending.size === 0) this.#reference(true)
    this.#pending.set(id, git)
  }

  #untrack(id: number): void {
    if (!this.#pending.delete(id) || this.#pending.size > 0) return
    this.#reference(false)
  }

  #reference(referenced: boolean): void {
    const output = this.child.stdout
    if (!(output instanceof Socket)) return
    if (referenced) output.ref()
    else output.unref()
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

/** The first of `programs` that starts. */
const startLauncher = async (programs: ReadonlyArray<LauncherProgram>): Promise<Launcher | undefined> => {
  for (const program of programs) {
    const started = await Launcher.start(program).catch(() => undefined)
    if (started !== undefined) return started
  }
  return undefined
}

const directly = (command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): GitProcess =>
  spawn(command, [...args], { env, stdio: "pipe" })

export type StartGit = (command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) => Promise<GitProcess>

/**
 * Starts `command` (git) with `args` and exactly `env`, through the first of `programs` that runs
 * as a launcher (started at the first call, and again if it died), else directly. The result emits
 * `spawn`, `error` and `close` (code, signal) as a ChildProcess does.
 */
export const gitStarter = (programs: ReadonlyArray<LauncherProgram>): StartGit => {
  let launcher: Promise<Launcher | undefined> | undefined
  return async (command, args, env) => {
    launcher ??= startLauncher(programs)
    let running = await launcher
    if (running !== undefined && !running.alive) {
      launcher = startLauncher(programs)
      running = await launcher
    }
    return running === undefined ? directly(command, args, env) : running.start(command, args, env)
  }
}

export const startGit: StartGit = gitStarter([pythonLauncher, perlLauncher, nodeLauncher])
