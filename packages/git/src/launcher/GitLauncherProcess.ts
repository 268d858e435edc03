/**
 * The launcher's program (GitLauncher.ts starts it) where perl is not: a small Node process that
 * starts git for the server, as GitLauncherProcess.pl does, speaking the same protocol
 * (LauncherProtocol.ts). For each start it connects to the server's socket, names the start, and gives that
 * connection to git as its stdin and stdout, so the data never passes through here; git's stderr
 * is kept (bounded) and reported with its exit.
 *
 * It imports nothing but Node's own modules and the protocol: run from source or from the bundle, it
 * stays small, which is the point (forking a small process costs far less than forking the server).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { rmSync } from "node:fs"
import { connect } from "node:net"
import { basename } from "node:path"
import { encodeReply, isSignal, type Reply, type Request, RequestReader } from "./LauncherProtocol.ts"

const STDERR_LIMIT = 64 * 1024

// The socket's directory (the first argument) goes with the server, however the server ended.
const socketDirectory = process.argv[2] ?? ""
const socketPath = `${socketDirectory}/git.sock`

const children = new Map<number, ChildProcess>()
// A server that went away cannot be told anything: its closed input ends this process.
process.stdout.on("error", () => undefined)
const send = (reply: Reply) => process.stdout.write(encodeReply(reply))

const start = (request: Extract<Request, { _tag: "Start" }>) => {
  const socket = connect(socketPath)
  socket.on("error", (error) => send({ _tag: "Failed", id: request.id, message: error.message }))
  socket.once("connect", () => {
    // The start's name first, written before git can write anything to the same connection.
    socket.write(request.key, () => {
      const child = spawn(request.command, [...request.args], { env: request.env, stdio: [socket, socket, "pipe"] })
      children.set(request.id, child)
      const stderr: Array<Buffer> = []
      let stderrBytes = 0
      child.stderr?.on("data", (chunk: Buffer) => {
        if (stderrBytes < STDERR_LIMIT) stderr.push(chunk)
        stderrBytes += chunk.length
      })
      child.once("spawn", () => {
        // git holds the connection now; this process's copy of it is not needed.
        socket.destroy()
        send({ _tag: "Started", id: request.id, pid: child.pid ?? 0 })
      })
      child.once("error", (error) => {
        children.delete(request.id)
        socket.destroy()
        send({ _tag: "Failed", id: request.id, message: error.message })
      })
      child.once("close", (code, signal) => {
        children.delete(request.id)
        send({ _tag: "Exited", id: request.id, code, signal, stderr: Buffer.concat(stderr).subarray(0, STDERR_LIMIT) })
      })
    })
  })
}

const requests = new RequestReader()
process.stdin.on("data", (chunk: Buffer) => {
  for (const request of requests.push(chunk)) {
    if (request._tag === "Start") start(request)
    else if (isSignal(request.signal)) children.get(request.id)?.kill(request.signal)
  }
})
// The server's shutdown (a signal to the whole group included) is the server's to run: this
// process ends when the server is gone, leaving running git processes to finish their connection.
process.on("SIGINT", () => undefined)
process.on("SIGTERM", () => undefined)
process.stdin.on("end", () => {
  if (basename(socketDirectory).startsWith("kiln-git-")) rmSync(socketDirectory, { recursive: true, force: true })
  process.exit(0)
})
send({ _tag: "Ready" })
