/**
 * The Node HTTP server Kiln listens with: no limit on receiving a whole request (a large push may
 * take longer than Node's default 5 minutes), but headers must arrive in full within
 * HEADERS_TIMEOUT_MILLIS (answered 408 and closed otherwise: Node's default, which turning
 * `requestTimeout` off would turn off too); connections on which nothing moves, or a body barely
 * moves, closed after `idleMillis` (IdleConnections.ts); requests that arrive before the routes
 * held until the routes are attached; and the requests a direct route takes answered without the
 * application (DirectRoutes.ts).
 */
import { createServer, type Server } from "node:http"
import { type DirectRouteTable, routeDirectly } from "./DirectRoutes.ts"
import { holdEarlyRequests } from "./EarlyRequests.ts"
import { closeIdleConnections } from "./IdleConnections.ts"

export const HEADERS_TIMEOUT_MILLIS = 60_000

export const createNodeServer = (options: {
  readonly idleMillis: number
  /** How long headers may take in all. */
  readonly headersMillis?: number
  /** How often Node looks for requests past their time (its default is 30 s). */
  readonly checkMillis?: number
  /** Asked first for every request the application would be given. */
  readonly directRoutes?: DirectRouteTable
}): Server => {
  // The hold ends when a `request` listener is added, so it goes on last: the idle watch adds one
  // of its own, which would otherwise end the hold before the routes exist, and a request arriving
  // in that window (a restarted process behind a load balancer) would never be answered. The direct
  // routes go before the application's listener alone, the one added after these.
  const server = holdEarlyRequests(closeIdleConnections(
    createServer({
      requestTimeout: 0,
      headersTimeout: options.headersMillis ?? HEADERS_TIMEOUT_MILLIS,
      ...(options.checkMillis === undefined ? {} : { connectionsCheckingInterval: options.checkMillis })
    }),
    options.idleMillis
  ))
  return options.directRoutes === undefined ? server : routeDirectly(server, options.directRoutes)
}
