/**
 * Closes connections on which the client lets nothing move for `idleMillis`: a request whose
 * headers or body stop arriving, a response the client stops reading, a kept-alive connection
 * left open. A transfer that keeps moving is never cut, however long it takes in all (a large
 * push, a long download), and neither is a request the client has sent in full while the server
 * works on its answer (a migration may clone for minutes before it answers).
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

export const closeIdleConnections = <S extends Server>(server: S, idleMillis: number): S => {
  if (idleMillis <= 0) return server
  const exchanges = new WeakMap<Socket, { readonly request: IncomingMessage; readonly response: ServerResponse }>()
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    exchanges.set(request.socket, { request, response })
    response.once("finish", () => {
      if (exchanges.get(request.socket)?.response === response) exchanges.delete(request.socket)
    })
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
