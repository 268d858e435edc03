/**
 * The Node HTTP server Kiln listens with: no limit on receiving a whole request (a large push may
 * take longer than Node's default 5 minutes; headers must still arrive within `headersTimeout`),
 * connections on which nothing moves closed after `idleMillis`, and requests that arrive before the
 * routes held until the routes are attached.
 */
import { createServer, type Server } from "node:http"
import { holdEarlyRequests } from "./EarlyRequests.ts"
import { closeIdleConnections } from "./IdleConnections.ts"

export const createNodeServer = (options: { readonly idleMillis: number }): Server =>
  // The hold ends when a `request` listener is added, so it goes on last: the idle watch adds one
  // of its own, which would otherwise end the hold before the routes exist, and a request arriving
  // in that window (a restarted process behind a load balancer) would never be answered.
  holdEarlyRequests(closeIdleConnections(createServer({ requestTimeout: 0 }), options.idleMillis))
