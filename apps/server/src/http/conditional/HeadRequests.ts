/**
 * `HEAD` on every `GET` route. The router would try a HEAD request's own routes first, and the
 * catch-all 404 route takes any method, so a HEAD request is routed as the GET it mirrors; Node
 * leaves the body out of the answer to a HEAD request and keeps its headers.
 */
import { Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import { withRequest } from "../ServedRequest.ts"

/** The same request, read as a GET (everything else, the platform's request object included, shared). */
const asGet = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest =>
  Object.create(request, { method: { value: "GET", enumerable: true } })

export const headAsGet = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  withRequest((request) =>
    request.method === "HEAD" ? Effect.provideService(app, HttpServerRequest.HttpServerRequest, asGet(request)) : app)
