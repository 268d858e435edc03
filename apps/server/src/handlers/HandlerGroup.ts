/**
 * `HttpApiBuilder.group` whose handlers carry into each request only the services they use there.
 *
 * HttpApiBuilder merges every service a group was built with into each request's service map
 * (~110 of them: Effect copies them all, per request). Here the group is built with all of them,
 * but what its requests get is its endpoints' middleware and the services named in
 * `requestServices`: those its handlers ask for while answering rather than when built. The types
 * hold the list true: a handler that asks for another one leaves its `Request<"Requires", …>` in
 * the layer's requirements, which LeanRequests.serve refuses.
 */
import { Context, Effect, Layer, Scope } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiBuilder, type HttpApi, type HttpApiGroup } from "effect/http-api"

type Identifiers<Keys extends ReadonlyArray<Context.Key<unknown, unknown>>> = Context.Service.Identifier<Keys[number]>

export const group = <
  ApiId extends string,
  Groups extends HttpApiGroup.Constraint,
  const Id extends HttpApiGroup.Identifier<Groups>,
  Return,
  const Keys extends ReadonlyArray<Context.Key<unknown, unknown>>
>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  id: Id,
  requestServices: Keys,
  build: (
    handlers: HttpApiBuilder.Handlers.FromGroup<HttpApiGroup.WithIdentifier<Groups, Id>>
  ) => HttpApiBuilder.Handlers.ValidateReturn<Return>
): Layer.Layer<
  HttpApiGroup.Service<ApiId, Id>,
  HttpApiBuilder.Handlers.Error<Return>,
  | Exclude<HttpApiBuilder.Handlers.Context<Return>, Scope.Scope | HttpRouter.Request<"Requires", Identifiers<Keys>>>
  | Identifiers<Keys>
> =>
  Layer.effectContext(Effect.gen(function*() {
    const services = yield* Effect.context<never>()
    const group = api.groups[id] as HttpApiGroup.Top
    const middlewares = Object.values(group.endpoints).flatMap((endpoint) => [...endpoint.middlewares])
    const kept = Context.pick(...middlewares, ...requestServices)(services)
    // Its requirements are met by `services` while it is built and by `kept` while it serves.
    const inner = HttpApiBuilder.group(api, id, (handlers) => {
      const built = build(handlers)
      return (Effect.isEffect(built) ? Effect.provideContext(built, services) : built) as HttpApiBuilder.Handlers.ValidateReturn<Return>
    }) as Layer.Layer<HttpApiGroup.Service<ApiId, Id>, HttpApiBuilder.Handlers.Error<Return>>
    const scope = yield* Scope.Scope
    // Built on the kept services alone: what the group captures is what each request is given.
    return yield* Layer.buildWithMemoMap(inner, Layer.CurrentMemoMap.forkOrCreate(services), scope).pipe(
      Effect.updateContext((_: Context.Context<never>) => kept)
    )
  }))
