/**
 * `HttpRouter.serve` with requests that start light: each request's fiber begins with Effect's own
 * services (the runtime's settings such as the logger, the tracer and the clock, the platform, the
 * server and its scope) and the domain's acting References, not with the ~90 services the
 * application builds.
 *
 * Why: Effect copies a request's whole service map whenever it grows past a few additions or has
 * another map merged in (HttpApiBuilder merges each handler group's services into every request).
 * With the application's services in it, those copies were ~15% of the CPU of a `/version`
 * request. Routes and handlers take the services they use when they are built, and the types say
 * so: a route that needed one at request time would make this layer require
 * `Request<"Requires", …>` of it, which the constraint below refuses. References have no place in
 * the types; the ones the domain reads while acting are listed in ActingReferences.
 */
import { Context, Effect, Layer, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import type * as FindMyWay from "effect/http/FindMyWay"
import { actingReferences } from "@kiln/domain/ActingReferences"

/** Effect's own services are named in its packages' namespaces; Kiln's are `@kiln/…`. */
const isEffectService = (key: string) => key.startsWith("effect/") || key.startsWith("~effect/") || key.startsWith("@effect/")

const acting = new Set(actingReferences.map((reference) => reference.key))

/** What a request starts from: Effect's own services of `context` and the domain's acting References. */
const requestBase = <R>(context: Context.Context<R>): Context.Context<R> =>
  Context.makeUnsafe(new Map([...context.mapUnsafe].filter(([key]) => isEffectService(key) || acting.has(key))))

/** The services routes ask of the request context beyond what the router gives each request. */
type RequestRequirements<R> = HttpRouter.Request.Only<"Requires", R> | HttpRouter.Request.Only<"GlobalRequires", R>

export const serve = <A, E, R>(
  appLayer: Layer.Layer<A, E, R> & ([RequestRequirements<R>] extends [never] ? unknown : {
    readonly "a route needs a service at request time": RequestRequirements<R>
  }),
  options: { readonly routerConfig: Partial<FindMyWay.RouterConfig> }
): Layer.Layer<A, HttpRouter.Request.Without<E>, HttpServer.HttpServer | Exclude<HttpRouter.Request.Without<R>, HttpRouter.HttpRouter>> => {
  const withRouter = Layer.provideMerge(
    appLayer,
    Layer.provide(HttpRouter.layer, Layer.succeed(HttpRouter.RouterConfig)(options.routerConfig))
  )
  const served = Layer.effectContext(Effect.gen(function*() {
    const context = yield* Effect.context<Scope.Scope>()
    const built = yield* Layer.buildWithMemoMap(
      withRouter,
      Layer.CurrentMemoMap.forkOrCreate(context),
      Context.get(context, Scope.Scope)
    )
    const handler = Context.get(built, HttpRouter.HttpRouter).asHttpEffect()
    // The server hands each request the services of the fiber that started serving.
    yield* HttpServer.serveEffect(handler).pipe(Effect.updateContext(requestBase))
    return built
  }))
  return HttpServer.withLogAddress(served) as Layer.Layer<
    A,
    HttpRouter.Request.Without<E>,
    HttpServer.HttpServer | Exclude<HttpRouter.Request.Without<R>, HttpRouter.HttpRouter>
  >
}
