/**
 * Requests a plain Node handler answers ahead of the Effect application: git's smart HTTP, whose
 * handler is Node's own (SmartHttp.ts). Through the application its request fiber, router and
 * middleware only wrapped that handler, for ~0.2 ms of CPU per request back to back and ~0.5 ms
 * after a pause, which is how a git operation's requests come (each waits for the client's git):
 * ~1 ms of the ~5 of a fetch of nothing new. A route takes a request (true: it answers it) or
 * declines it (false), and the application answers what every route declined.
 *
 * The server that listens (NodeServer.ts) or the mounted handler (MountedServer.ts) asks the routes
 * the application registered once built; before that, and where nothing provides this service (an
 * Effect router embedding Kiln), every request goes to the application.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Context, Effect, Layer } from "effect"

export type DirectRoute = (request: IncomingMessage, response: ServerResponse) => boolean

export interface DirectRouteTable {
  /** Adds a route, asked after those added before it. */
  readonly add: (route: DirectRoute) => void
  /** Whether a route took the request. */
  readonly take: DirectRoute
}

export class DirectRoutes extends Context.Service<DirectRoutes, DirectRouteTable>()("@kiln/server/http/DirectRoutes") {}

export const makeTable = (): DirectRouteTable => {
  const routes: Array<DirectRoute> = []
  return {
    add: (route) => void routes.push(route),
    take: (request, response) => routes.some((route) => route(request, response))
  }
}

/** `server` built with a fresh table (to hand to `routeDirectly`), and the table as `DirectRoutes`. */
export const serving = <A, E, R>(server: (table: DirectRouteTable) => Layer.Layer<A, E, R>) =>
  Layer.unwrap(Effect.sync(() => {
    const table = makeTable()
    return Layer.merge(Layer.succeed(DirectRoutes, table), server(table))
  }))

type Listener = (request: IncomingMessage, response: ServerResponse) => void

/**
 * `server` with the `request` listeners added from now on (the application's, by NodeHttpServer)
 * called only for the requests no route of `table` took; listeners added before (the idle
 * connections' watch) still see every request. Removing a listener removes its wrapper.
 */
export const routeDirectly = <S extends Server>(server: S, table: DirectRouteTable): S => {
  const wrappers = new WeakMap<Listener, Listener>()
  const wrapped = (listener: Listener): Listener => {
    const known = wrappers.get(listener)
    if (known !== undefined) return known
    const wrapper: Listener = (request, response) => {
      if (!table.take(request, response)) listener(request, response)
    }
    wrappers.set(listener, wrapper)
    return wrapper
  }
  // Every listener of an emitter is a function of the event's arguments, whatever Node's overloads name.
  type Register = (event: string | symbol, listener: (...args: Array<never>) => void) => S
  const add = server.on.bind(server) as Register
  const remove = server.off.bind(server) as Register
  const adds: Register = (event, listener) =>
    event === "request" ? add(event, wrapped(listener as Listener)) : add(event, listener)
  const removes: Register = (event, listener) =>
    event === "request" ? remove(event, wrappers.get(listener as Listener) ?? listener) : remove(event, listener)
  Object.assign(server, { on: adds, addListener: adds, off: removes, removeListener: removes })
  return server
}
