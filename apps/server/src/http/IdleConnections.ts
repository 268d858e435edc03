/**
 * Closes connections on which the client lets nothing move for `idleMillis`: a request whose
 * headers or body stop arriving, a response the client stops reading, a kept-alive connection
 * left open. A request body must also bring at least MIN_BODY_BYTES_PER_PERIOD in every such period
 * while the server is ready to read it: a client trickling a byte a minute never lets the socket go
 * idle, and would otherwise keep it (and a git process) forever. A transfer that keeps moving is
 * never cut, however long it takes in all (a large push, a long download), and neither is a request
 * the client has sent in full while the server works on its answer (a migration may clone for
 * minutes before it answers), nor a body the server is slow to take (a push waiting for its lock).
 * Headers have a bound of their own: NodeServer's `headersTimeout`.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/** Less than a kilobyte in a whole idle period (a minute by default) is no transfer. */
export const MIN_BODY_BYTES_PER_PERIOD = 1024

/** Whether the request's unread body has filled its buffer: the server, not the client, holds it up. */
const heldByServer = (request: IncomingMessage) =>
  request.isPaused() || request.readableLength >= request.readableHighWaterMark

const hasBody = (request: IncomingMessage) => {
  const length = request.headers["content-length"]
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined
}

/** Destroys the socket when a period passes in which the client sent less than the minimum of a body the server was ready for. */
const watchBodyProgress = (request: IncomingMessage, idleMillis: number) => {
  const socket = request.socket
  let readBefore = socket.bytesRead
  const timer = setInterval(() => {
    if (request.complete || socket.destroyed) return clearInterval(timer)
    const read = socket.bytesRead
    if (read - readBefore < MIN_BODY_BYTES_PER_PERIOD && !heldByServer(request)) {
      clearInterval(timer)
      socket.destroy()
      return
    }
    readBefore = read
  }, idleMillis)
  timer.unref()
  request.once("close", () => clearInterval(timer))
}

export const closeIdleConnections = <S extends Server>(server: S, idleMillis: number): S => {
  if (idleMillis <= 0) return server
  const exchanges = new WeakMap<Socket, { readonly request: IncomingMessage; readonly response: ServerResponse }>()
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    exchanges.set(request.socket, { request, response })
    response.once("finish", () => {
      if (exchanges.get(request.socket)?.response === response) exchanges.delete(request.socket)
    })
    if (hasBody(request)) watchBodyProgress(request, idleMillis)
  })
  // A socket's timer restarts with every byte read or written; it fires after idleMillis of neither.
  server.setTimeout(idleMillis, (socket: Socket) => {
    const exchange = exchanges.get(socket)
    // The client sent everything and waits for the server, which has not started answering: not idle on its side.
    if (exchange !== undefined && exchange.request.complete && !exchange.response.headersSent) return
    socket.destroy()
  })
  return server
}
