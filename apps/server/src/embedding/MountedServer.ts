/**
 * Kiln served inside another service's Node HTTP server instead of a listening one of its own: an
 * `HttpServer` whose `serve` keeps the request handler it is given, and a Node handler that passes
 * it the requests under the root URL's path with that path stripped, as a proxy in front of Kiln
 * (or Forgejo) would. Every URL Kiln writes still carries the path: it comes from the root URL.
 * The direct routes (DirectRoutes.ts) are asked first, as a listening server asks them.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Deferred, Effect, Layer, Result } from "effect"
import { HttpServer } from "effect/http"
import { NetAddress } from "effect/net"
import type { IncomingMessage, ServerResponse } from "node:http"
import { DirectRoutes, makeTable } from "../http/DirectRoutes.ts"

/** A Node `request` listener, usable as Express-style middleware: `next()` for other paths. */
export type NodeRequestHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void
) => void

/** The handler Kiln's application gave its server, once the application has been built. */
export class MountPoint extends Context.Service<MountPoint, {
  readonly handler: Effect.Effect<(request: IncomingMessage, response: ServerResponse) => void>
}>()("@kiln/server/MountPoint") {}

/** Where the requests come from, for the start-up log line: the root URL's address when it is an IP. */
const addressOf = (rootUrl: string): NetAddress.SocketAddress => {
  const url = new URL(rootUrl)
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
  const inet = NetAddress.inetAddressFromIpString(url.hostname.replace(/^\[|\]$/g, ""), port)
  return Result.isSuccess(inet) ? inet.success : NetAddress.unixPathAddress(`mounted at ${rootUrl}`)
}

/** An HttpServer that listens nowhere: `MountPoint` hands out what it would have served. */
export const layer = (rootUrl: string) => Layer.effectContext(Effect.gen(function*() {
  const served = yield* Deferred.make<(request: IncomingMessage, response: ServerResponse) => void>()
  const directRoutes = makeTable()
  const server = HttpServer.make({
    address: addressOf(rootUrl),
    serve: (app, middleware) =>
      Effect.gen(function*() {
        const scope = yield* Effect.scope
        // Kiln's application applies its middleware on the router; none arrives here.
        const handler = yield* NodeHttpServer.makeHandler(middleware === undefined ? app : middleware(app), { scope })
        yield* Deferred.succeed(served, handler)
      })
  })
  const handler = Effect.map(Deferred.await(served), (serve) => (request: IncomingMessage, response: ServerResponse) => {
    if (!directRoutes.take(request, response)) serve(request, response)
  })
  return Context.make(HttpServer.HttpServer, server).pipe(
    Context.add(MountPoint, MountPoint.of({ handler })),
    Context.add(DirectRoutes, directRoutes)
  )
})).pipe(Layer.provideMerge(NodeHttpServer.layerHttpServices))

/**
 * The path a request has below `basePath` (no trailing slash; `""` at the root), or undefined when
 * it is not below it.
 */
export const pathBelow = (basePath: string, url: string): string | undefined => {
  if (basePath === "") return url
  if (!url.startsWith(basePath)) return undefined
  const rest = url.slice(basePath.length)
  if (rest === "") return "/"
  if (rest.startsWith("/")) return rest
  if (rest.startsWith("?")) return `/${rest}`
  return undefined
}

/**
 * Passes the requests below `basePath` to `handler` with that path stripped; the others go to
 * `next`, or get Kiln's JSON 404 when there is none.
 */
export const mount = (
  basePath: string,
  handler: (request: IncomingMessage, response: ServerResponse) => void
): NodeRequestHandler =>
(request, response, next) => {
  const below = pathBelow(basePath, request.url ?? "/")
  if (below !== undefined) {
    request.url = below
    return handler(request, response)
  }
  if (next !== undefined) return next()
  response.writeHead(404, { "content-type": "application/json;charset=utf-8" })
  response.end(JSON.stringify({ message: "Not Found", url: request.url ?? "/" }))
}
