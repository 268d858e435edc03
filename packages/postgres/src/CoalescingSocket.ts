/**
 * The socket of a shared, pipelined connection to a PostgreSQL server (ServerClient.ts): what is
 * written to it during one turn of the event loop leaves in one write.
 *
 * The driver already writes the statements submitted in one tick together, but requests arrive in
 * separate socket reads, each a tick of its own: under load every statement was a write system call
 * of its own, and on loopback the writer pays the receiving side's TCP work too. Corked until the
 * event loop's check phase, the statements of every request read in one poll leave together. A
 * statement waits at most for the rest of that poll's callbacks: nothing is held across turns.
 */
import * as Net from "node:net"
import type { SocketTarget } from "./ConnectionUrl.ts"

type WriteCallback = (error?: Error | null) => void

/**
 * Corks `socket` at its first write of a turn and uncorks it in that turn's check phase. Set on the
 * connected socket: `Socket.prototype.connect` puts the prototype's `write` back on the instance.
 */
export const coalesceWrites = (socket: Net.Socket): Net.Socket => {
  let corked = false
  const release = () => {
    corked = false
    socket.uncork()
  }
  const write = socket.write.bind(socket)
  socket.write = (chunk: Uint8Array | string, encoding?: BufferEncoding | WriteCallback, callback?: WriteCallback): boolean => {
    if (!corked) {
      corked = true
      socket.cork()
      setImmediate(release)
    }
    return typeof encoding === "function" ? write(chunk, encoding) : write(chunk, encoding, callback)
  }
  return socket
}

/** A coalescing socket to `target`, for the driver's `stream` option (which writes before it connects). */
export const connect = (target: SocketTarget): Net.Socket =>
  coalesceWrites(
    target._tag === "Unix"
      ? Net.connect({ path: target.path })
      // A statement is one write and then a wait for its answer: Nagle would only hold it back.
      : Net.connect({ host: target.host, port: target.port, noDelay: true })
  )
