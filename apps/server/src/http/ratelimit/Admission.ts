/**
 * Once the caller is known: which budget the request spends (searches their own), and the 429 when
 * it is spent. One request is spent at admission, before the route runs, so that requests running
 * at once cannot all pass a budget with one left; an answer that spends nothing (a 304) gives it
 * back (RateLimitHeaders). `/rate_limit` spends nothing and is never refused.
 *
 * The API's authentication middleware admits every API request; the routes outside the API admit
 * theirs too (RouteCaller: downloads and the package registry; GitRoutes: anonymous git).
 */
import { Effect, type Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { Principal } from "@kiln/domain/auth/Authentication"
import { ApiTooManyRequests } from "../ApiErrors.ts"
import type { Budget, RateLimiter, Resource } from "./RateLimiter.ts"
import * as RequestBudgets from "./RequestBudgets.ts"

/** Endpoints (by name) that spend the search budget. */
const SEARCHES = new Set(["repoSearch", "userSearch"])

export const RATE_LIMIT_ENDPOINT = "getRateLimit"

export const resourceOf = (endpointName: string): Resource => SEARCHES.has(endpointName) ? "search" : "core"

/** The client's address: the socket's peer, or whom a trusted proxy forwarded for (HttpApp). */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest): string =>
  request.remoteAddress._tag === "Some" ? request.remoteAddress.value : "unknown"

/**
 * Spends one request of the caller's budget, recording it for the answer's headers: undefined when
 * admitted (or the caller has no budget), the refusal's message when the budget is spent.
 */
export const reserve = (
  limiter: RateLimiter["Service"],
  request: HttpServerRequest.HttpServerRequest,
  principal: Option.Option<Principal>,
  resource: Resource
): string | undefined => {
  const spent = spend(limiter, principal, clientAddress(request), resource)
  if (spent === undefined) return undefined
  RequestBudgets.record(request.source, { budget: spent.budget, spends: !spent.exhausted, exhausted: spent.exhausted })
  return spent.exhausted ? refusalOf(spent.budget) : undefined
}

/** Spends one request of the budget of `principal`, or of `address` without one: undefined when there is no budget. */
export const spend = (
  limiter: RateLimiter["Service"],
  principal: Option.Option<Principal>,
  address: string,
  resource: Resource
): { readonly budget: Budget; readonly exhausted: boolean } | undefined => {
  const budget = limiter.budgetOf(principal, address, resource)
  if (budget === undefined) return undefined
  const exhausted = limiter.state(budget).remaining === 0
  if (!exhausted) limiter.spend(budget)
  return { budget, exhausted }
}

export const refusalOf = (budget: Budget): string => `API rate limit exceeded for ${budget.subject}`

export const admit = (
  limiter: RateLimiter["Service"],
  errorUrl: string,
  request: HttpServerRequest.HttpServerRequest,
  principal: Option.Option<Principal>,
  endpointName: string
): Effect.Effect<void, ApiTooManyRequests> => {
  if (endpointName === RATE_LIMIT_ENDPOINT) {
    const budget = limiter.budgetOf(principal, clientAddress(request), "core")
    if (budget !== undefined) RequestBudgets.record(request.source, { budget, spends: false, exhausted: false })
    return Effect.void
  }
  const refusal = reserve(limiter, request, principal, resourceOf(endpointName))
  return refusal === undefined ? Effect.void : Effect.fail(new ApiTooManyRequests({ message: refusal, url: errorUrl }))
}
