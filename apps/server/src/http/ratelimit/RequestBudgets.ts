/**
 * The budget each request spent at admission, as the authentication middleware (inside the router)
 * or a route outside the API found it, for the router-wide middleware that answers its headers and
 * gives back what a 304 did not use. Keyed by the platform's request object, which every copy of
 * the request shares.
 */
import type { Budget } from "./RateLimiter.ts"

export interface RequestBudget {
  readonly budget: Budget
  /** One request of the budget was spent at admission (false for `/rate_limit` and for a refusal). */
  readonly spends: boolean
  /** The request was refused for an exhausted budget. */
  readonly exhausted: boolean
}

const budgets = new WeakMap<object, RequestBudget>()

export const record = (source: object, budget: RequestBudget): void => {
  budgets.set(source, budget)
}

export const recorded = (source: object): RequestBudget | undefined => budgets.get(source)
