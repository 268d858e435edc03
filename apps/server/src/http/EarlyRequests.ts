/**
 * NodeHttpServer listens as soon as its layer is built, before the application's layers and the
 * routes are; Node ignores a request that finds no `request` listener, so a client connecting in
 * that window would wait forever. This holds such requests and hands them to the routes' listener
 * once it is attached.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"

export const holdEarlyRequests = <S extends Server>(server: S): S => {
  const held: Array<readonly [IncomingMessage, ServerResponse]> = []
  const hold = (request: IncomingMessage, response: ServerResponse) => {
    held.push([request, response])
  }
  const onListener = (event: string | symbol) => {
    if (event !== "request") return
    server.off("newListener", onListener)
    server.off("request", hold)
    // `newListener` fires before the listener is added: replay once it is.
    process.nextTick(() => {
      for (const [request, response] of held.splice(0)) server.emit("request", request, response)
    })
  }
  server.on("request", hold)
  server.on("newListener", onListener)
  return server
}
