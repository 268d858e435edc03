/**
 * The budget each request spends, as the authentication middleware (inside the router) found it, for
 * the router-wide middleware that counts it once the answer's status is known. Keyed by the
 * platform's request object, which every copy of the request shares.
 */
import type { Budget } from "./RateLimiter.ts"

export interface RequestBudget {
  readonly budget: Budget
  /** False for answers that spend nothing (`/rate_limit` itself). */
  readonly spends: boolean
  /** The request was refused for an exhausted budget. */
  readonly exhausted: boolean
}

const budgets = new WeakMap<object, RequestBudget>()

export const record = (source: object, budget: RequestBudget): void => {
  budgets.set(source, budget)
}

export const recorded = (source: object): RequestBudget | undefined => budgets.get(source)
