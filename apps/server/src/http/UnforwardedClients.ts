/**
 * Without KILN_TRUSTED_PROXIES, `X-Forwarded-For` is ignored (anyone can send it), so behind a
 * reverse proxy every client has the proxy's address: one client's failed sign-ins and spent
 * budget would refuse everyone, and the access log would name only the proxy. A request carrying
 * the header is the sign of such a deployment: the first one is warned about, once per process.
 */
import { Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { withRequest } from "./ServedRequest.ts"

export const warningText =
  "a request carried X-Forwarded-For, which is ignored without KILN_TRUSTED_PROXIES: behind a reverse proxy, " +
  "set it to the proxy's address, or every client shares the proxy's address for sign-in limits, request budgets and the access log"

export const warnOnForwardedHeaders = () => {
  let warned = false
  return <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    withRequest((request) => {
      if (warned || request.headers["x-forwarded-for"] === undefined) return app
      warned = true
      const peer = request.remoteAddress._tag === "Some" ? request.remoteAddress.value : "unknown"
      return Effect.andThen(Effect.logWarning(warningText, { peer }), app)
    })
}
