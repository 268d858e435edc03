/**
 * The request being served, read in one step of its fiber. `Effect.flatMap(HttpServerRequest, f)`
 * takes three (the service's lookup, the flatMap, its continuation), and each router-wide
 * middleware did it for every request: 30 of the 60 steps of a `/version` request.
 */
import { Context, Effect } from "effect"
import { HttpServerRequest } from "effect/http"

export const withRequest = <A, E, R>(
  f: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.contextWith((context: Context.Context<HttpServerRequest.HttpServerRequest>) =>
    f(Context.get(context, HttpServerRequest.HttpServerRequest)))
