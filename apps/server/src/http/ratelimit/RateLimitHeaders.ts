/**
 * Router-wide: once the answer is known, gives back the request admission spent when the answer is
 * a 304 (a 304 spends nothing) and answers GitHub's `X-RateLimit-*` headers, with `Retry-After` on
 * a 429.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import type { BudgetState, RateLimiter } from "./RateLimiter.ts"
import * as RequestBudgets from "./RequestBudgets.ts"
import { withRequest } from "../ServedRequest.ts"

export const headersOf = (state: BudgetState, resource: string): Record<string, string> => ({
  "x-ratelimit-limit": String(state.limit),
  "x-ratelimit-remaining": String(state.remaining),
  "x-ratelimit-used": String(state.used),
  "x-ratelimit-reset": String(state.reset),
  "x-ratelimit-resource": resource
})

/** `Retry-After` of a spent budget: seconds until its window resets, at least one. */
export const retryAfterOf = (state: BudgetState): string => String(Math.max(1, state.reset - Math.floor(Date.now() / 1000)))

export const rateLimitHeaders = (limiter: RateLimiter["Service"]) =>
<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  withRequest((request) =>
    Effect.map(app, (response) => {
      const spent = RequestBudgets.recorded(request.source)
      if (spent === undefined) return response
      if (spent.spends && response.status === 304) limiter.refund(spent.budget)
      const state = limiter.state(spent.budget)
      const headers = headersOf(state, spent.budget.resource)
      if (spent.exhausted) headers["retry-after"] = retryAfterOf(state)
      return HttpServerResponse.setHeaders(response, headers)
    }))
