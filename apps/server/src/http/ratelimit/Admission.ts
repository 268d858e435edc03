/**
 * Inside the authentication middleware, once the caller is known: which budget the request spends
 * (searches their own), and the 429 when it is spent. `/rate_limit` spends nothing and is never
 * refused.
 */
import { Effect, type Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { Principal } from "@kiln/domain/auth/Authentication"
import { ApiTooManyRequests } from "../ApiErrors.ts"
import type { RateLimiter, Resource } from "./RateLimiter.ts"
import * as RequestBudgets from "./RequestBudgets.ts"

/** Endpoints (by name) that spend the search budget. */
const SEARCHES = new Set(["repoSearch", "userSearch"])

export const RATE_LIMIT_ENDPOINT = "getRateLimit"

export const resourceOf = (endpointName: string): Resource => SEARCHES.has(endpointName) ? "search" : "core"

/** The client's address: the socket's peer, or whom a trusted proxy forwarded for (HttpApp). */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest): string =>
  request.remoteAddress._tag === "Some" ? request.remoteAddress.value : "unknown"

export const admit = (
  limiter: RateLimiter["Service"],
  errorUrl: string,
  request: HttpServerRequest.HttpServerRequest,
  principal: Option.Option<Principal>,
  endpointName: string
): Effect.Effect<void, ApiTooManyRequests> => {
  const budget = limiter.budgetOf(principal, clientAddress(request), resourceOf(endpointName))
  if (budget === undefined) return Effect.void
  if (endpointName === RATE_LIMIT_ENDPOINT) {
    RequestBudgets.record(request.source, { budget, spends: false, exhausted: false })
    return Effect.void
  }
  const exhausted = limiter.state(budget).remaining === 0
  RequestBudgets.record(request.source, { budget, spends: true, exhausted })
  return exhausted
    ? Effect.fail(new ApiTooManyRequests({ message: `API rate limit exceeded for ${budget.subject}`, url: errorUrl }))
    : Effect.void
}
