/**
 * The server's side of the SSH socket (ServProtocol.ts), listening while the server runs on the
 * embedded database: `kiln serv` is then served by this process, through the same GitSessions as
 * the built-in SSH server. The socket is the owner's only (mode 0600), as the control socket.
 */
import type { Socket } from "node:net"
import { join, resolve } from "node:path"
import { Writable } from "node:stream"
import { Effect, Layer, Option } from "effect"
import { Digest } from "effect/crypto"
import { SshIdentities } from "@kiln/domain/ssh/SshIdentities"
import { KilnConfig } from "../config/KilnConfig.ts"
import * as OwnerOnlySocket from "../platform/OwnerOnlySocket.ts"
import { authorizedKey } from "./AuthorizedKeys.ts"
import * as GitSessions from "./GitSessions.ts"
import { decodeServRequest, frame, FRAME_EXIT, FRAME_STDERR, FRAME_STDOUT, SSH_SOCKET_NAME } from "./ServProtocol.ts"

/** Longest request line. */
const MAX_REQUEST = 16 * 1024

/** The first line of `socket`; what came after it is put back to be read as the input. */
const firstLine = (socket: Socket) =>
  new Promise<string | undefined>((done) => {
    let buffered: Buffer = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      const newline = buffered.indexOf(10)
      if (newline < 0) {
        if (buffered.length > MAX_REQUEST) finish(undefined)
        return
      }
      socket.pause()
      finish(buffered.subarray(0, newline).toString("utf8"))
      const rest = buffered.subarray(newline + 1)
      if (rest.length > 0) socket.unshift(rest)
    }
    const finish = (line: string | undefined) => {
      socket.off("data", onData)
      socket.off("end", onEnd)
      done(line)
    }
    const onEnd = () => finish(undefined)
    socket.on("data", onData)
    socket.once("end", onEnd)
  })

/** Writes what it is given to `socket` as frames of `kind`, with the socket's backpressure. */
const framed = (socket: Socket, kind: number) =>
  new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (socket.destroyed) return callback()
      if (socket.write(frame(kind, chunk))) callback()
      else socket.once("drain", () => callback())
    }
  })

export const layer = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* KilnConfig
  if (Option.isSome(config.databaseUrl)) return
  const sessions = yield* GitSessions.make
  const context = yield* Effect.context<SshIdentities | Digest.Digest>()
  const dataDir = resolve(config.dataDir)
  const path = join(dataDir, SSH_SOCKET_NAME)

  const serve = async (socket: Socket) => {
    socket.on("error", () => socket.destroy())
    const line = await firstLine(socket)
    const request = line === undefined ? undefined : await Effect.runPromise(Effect.option(decodeServRequest(line)))
    const exit = (code: number) => {
      if (!socket.destroyed) socket.end(frame(FRAME_EXIT, Uint8Array.of(code)))
    }
    if (request === undefined || Option.isNone(request)) return exit(2)
    const asked = request.value
    if (asked.command === "keys") {
      // The command line composes the authorized_keys line: the forced command is its own.
      const found = await Effect.runPromise(authorizedKey({ type: asked.type, key: asked.key }).pipe(Effect.provideContext(context)))
      if (Option.isSome(found)) socket.write(frame(FRAME_STDOUT, Buffer.from(`${JSON.stringify(found.value)}\n`)))
      return exit(0)
    }
    const controller = new AbortController()
    socket.once("close", () => controller.abort())
    // The socket stays paused until git's input is piped from it: resumed before, what the client
    // sent meanwhile (git archive's arguments, which it sends before the server speaks) was lost.
    const code = await sessions.serveKey(asked.keyId, asked.originalCommand, asked.gitProtocol, {
      input: socket,
      output: framed(socket, FRAME_STDOUT),
      errors: framed(socket, FRAME_STDERR),
      signal: controller.signal
    }).catch(() => 1)
    exit(code)
  }

  // The client half-closes after its input: its answer still flows.
  yield* OwnerOnlySocket.listen(path, (socket) => void serve(socket), `no SSH socket at ${path}: kiln serv cannot reach this server`, {
    allowHalfOpen: true
  })
}))
