/**
 * `@kiln/server` as a library: Kiln inside another Node service, configured by a value (nothing is
 * read from the environment).
 *
 * - `layer(settings)`: the whole application as a Layer, served on the `HttpServer` in context,
 *   with the domain services (accounts, organizations, repositories, quota, ...) it exposes.
 * - `mounted(settings)`: the same without a server of its own; `MountedKiln` hands out a Node
 *   request handler for the requests under the root URL's path (`node:http`, Express-style).
 * - `route(settings)`: that handler as a route of an Effect `HttpRouter` on NodeHttpServer.
 * - `start(options)`: `mounted` for code that does not use Effect, behind Promises.
 *
 * Mounted under a path, the root URL carries it (`http://host/git-api/`): every URL Kiln writes
 * (`clone_url`, `html_url`, redirects, the API description) starts with it, and the handler
 * strips it from each request.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Context, Effect, Layer, ManagedRuntime, type Scope } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
import { InvalidConfiguration, KilnConfig, type KilnSettings, makeSettings } from "./config/KilnConfig.ts"
import * as MountedServer from "./embedding/MountedServer.ts"
import * as KilnServer from "./KilnServer.ts"

export { InvalidConfiguration, KilnConfig, type KilnSettings, makeSettings }
export type { NodeRequestHandler } from "./embedding/MountedServer.ts"

/** What `makeSettings` and `start` take: the root URL and data directory, and any other setting. */
export type KilnOptions = Parameters<typeof makeSettings>[0]

/** The root URL's path without its trailing slash: `""` at the root. */
const basePathOf = (settings: KilnSettings) => new URL(settings.rootUrl).pathname.replace(/\/$/, "")

const isRoutePath = (path: string): path is `/${string}` => path.startsWith("/")

const withSettings = (settings: KilnSettings) => Layer.succeed(KilnConfig, settings)

/**
 * Built with a memo map of its own, and without its router in what it provides. Layers are shared
 * by reference within a build, and Kiln's router comes from `HttpRouter.layer` as an embedder's
 * does: built in the embedder's map, Kiln would register its routes and middleware on the
 * embedder's router; provided to the embedder, Kiln's router would replace theirs.
 */
const isolated = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<Exclude<A, HttpRouter.HttpRouter>, E, Exclude<R, Scope.Scope>> =>
  Layer.effectContext(Effect.gen(function*() {
    const memoMap = yield* Layer.makeMemoMap
    const built = yield* Layer.buildWithMemoMap(layer, memoMap, yield* Effect.scope)
    return Context.omit(HttpRouter.HttpRouter)(built)
  }))

/** Kiln on the `HttpServer` in context, and its application services. */
export const layer = (settings: KilnSettings) =>
  isolated(KilnServer.compose(Layer.effectContext(Effect.context<KilnServer.ServerServices>())).pipe(
    Layer.provideMerge(withSettings(settings))
  ))

/** The Node request handler of a mounted Kiln. */
export class MountedKiln extends Context.Service<MountedKiln, {
  /** Serves the requests under the root URL's path; passes the others to `next` (or answers 404). */
  readonly handler: MountedServer.NodeRequestHandler
  /** The root URL's path the handler serves, without its trailing slash (`""` at the root). */
  readonly basePath: string
}>()("@kiln/server/MountedKiln") {}

/** Kiln without a server of its own: its application services and `MountedKiln`. */
export const mounted = (settings: KilnSettings) => {
  // One server for both: layers are built once per reference.
  const server = MountedServer.layer(settings.rootUrl)
  const handler = Layer.effect(
    MountedKiln,
    Effect.gen(function*() {
      const mountPoint = yield* MountedServer.MountPoint
      const serve = yield* mountPoint.handler
      const basePath = basePathOf(settings)
      return MountedKiln.of({ handler: MountedServer.mount(basePath, serve), basePath })
    })
  ).pipe(Layer.provide(server))
  // The application first: its server receives the handler that `MountedKiln` waits for.
  return isolated(handler.pipe(Layer.provideMerge(KilnServer.compose(server)), Layer.provideMerge(withSettings(settings))))
}

/**
 * Kiln as routes of an Effect `HttpRouter` served by NodeHttpServer: every method under the root
 * URL's path, which must not be the root itself.
 */
export const route = (settings: KilnSettings) =>
  Layer.unwrap(Effect.gen(function*() {
    const basePath = basePathOf(settings)
    if (!isRoutePath(basePath)) {
      return yield* Effect.fail(new InvalidConfiguration(["rootUrl: mounting on an HttpRouter needs a path (http://host/kiln/)"]))
    }
    const kiln = yield* MountedKiln
    const serve = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      // The raw Node objects: Kiln's git endpoints stream through them.
      const req = NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage
      const res = NodeHttpServerRequest.toServerResponse(request) as ServerResponse
      yield* Effect.callback<void>((resume) => {
        res.once("close", () => resume(Effect.void))
        kiln.handler(req, res)
      })
      // Not written (the Node response has ended).
      return HttpServerResponse.empty({ status: res.statusCode })
    })
    // The wildcard covers the path itself too.
    return HttpRouter.add("*", `${basePath}/*`, serve)
  })).pipe(Layer.provide(mounted(settings)))

/** A mounted Kiln for code that does not use Effect. */
export interface KilnInstance {
  /** A `node:http` request listener or Express-style middleware. */
  readonly handler: MountedServer.NodeRequestHandler
  readonly settings: KilnSettings
  /** Runs an effect with Kiln's domain services (UserAccounts, Repositories, QuotaService, ...). */
  readonly runPromise: <A, E>(effect: Effect.Effect<A, E, MountedServices>) => Promise<A>
  /** Stops Kiln: its database, workers and background work. */
  readonly close: () => Promise<void>
}

/** The services a mounted Kiln offers to `runPromise`. */
export type MountedServices = Layer.Success<ReturnType<typeof mounted>>

/** Builds a mounted Kiln; rejects with `InvalidConfiguration` or the error that stopped it starting. */
export const start = async (options: KilnOptions): Promise<KilnInstance> => {
  const settings = await Effect.runPromise(makeSettings(options))
  const runtime = ManagedRuntime.make(mounted(settings))
  const { handler } = await runtime.runPromise(Effect.gen(function*() {
    return yield* MountedKiln
  }))
  return {
    handler,
    settings,
    runPromise: (effect) => runtime.runPromise(effect),
    close: () => runtime.dispose()
  }
}
