/**
 * Budgets of requests per hour, GitHub's way: per signed-in user, or per client address for callers
 * signed in as nobody, with a smaller budget of its own for searches.
 *
 * Counting costs no query: each process counts in memory and adds its counts to the shared table
 * (RateLimitStore) once a second, and at once when a counter it does not know yet starts, or when a
 * caller within NEAR_LIMIT requests of their limit has gathered FLUSH_AT requests; the table answers
 * the totals, which include the other processes' counts. Near the limit, where it decides, a
 * process's view of a caller is thus short by at most a few requests per other process; far from it
 * the headers may lag by a second of the other processes' requests. Adding after every few requests
 * everywhere cost ~40 % of a signed-in read's throughput (an upsert per 8 requests).
 */
import { Cause, Context, Effect, Layer, Option, Queue } from "effect"
import type { Principal } from "@kiln/domain/auth/Authentication"
import { type RateLimitCount, RateLimitStore } from "@kiln/domain/ratelimit/RateLimitStore"
import { KilnConfig } from "../../config/KilnConfig.ts"

export type Resource = "core" | "search"

/** One caller's budget for one kind of request. */
export interface Budget {
  readonly subject: string
  readonly resource: Resource
  readonly limit: number
}

/** Where a budget stands, as GitHub's headers and `/rate_limit` tell it. */
export interface BudgetState {
  readonly limit: number
  readonly used: number
  readonly remaining: number
  /** Unix seconds when the window ends. */
  readonly reset: number
}

/** An anonymous budget moved to `address` (a remembered answer served to another client); others as they are. */
export const forAddress = (budget: Budget, address: string): Budget =>
  budget.subject.startsWith(ADDRESS) ? { ...budget, subject: `${ADDRESS}${address}` } : budget

const ADDRESS = "address:"
const FLUSH_AT = 8
const NEAR_LIMIT = 1_000
const FLUSH_INTERVAL_MS = 1_000
const HOUR_MS = 3_600_000

class Counter {
  window: number
  /** The shared total as the table last answered it (this process's flushed counts included). */
  shared = 0
  /** Counted here, not yet added to the table. */
  pending = 0
  /** The table has answered for this window. */
  known = false
  constructor(window: number) {
    this.window = window
  }
}

export class RateLimiter extends Context.Service<RateLimiter, {
  /** The budget a request spends, undefined when it spends none (off, or an exempt administrator). */
  readonly budgetOf: (principal: Option.Option<Principal>, address: string, resource: Resource) => Budget | undefined
  readonly state: (budget: Budget) => BudgetState
  /** Spends one request. */
  readonly spend: (budget: Budget) => void
  /** Gives back one request spent in this window (an answer that spends nothing). */
  readonly refund: (budget: Budget) => void
}>()("@kiln/server/RateLimiter") {}

export const layer = Layer.effect(
  RateLimiter,
  Effect.gen(function*() {
    const config = yield* KilnConfig
    const store = yield* RateLimitStore
    const counters = new Map<string, Counter>()
    const wake = yield* Queue.sliding<void>(1)
    let pruned = 0

    const currentWindow = () => Math.floor(Date.now() / HOUR_MS)
    const keyOf = (budget: Budget) => `${budget.resource}\u0000${budget.subject}`

    const counterOf = (budget: Budget): Counter => {
      const window = currentWindow()
      const key = keyOf(budget)
      let counter = counters.get(key)
      if (counter === undefined) {
        counter = new Counter(window)
        counters.set(key, counter)
      } else if (counter.window !== window) {
        counter.window = window
        counter.shared = 0
        counter.pending = 0
        counter.known = false
      }
      return counter
    }

    const flush = Effect.gen(function*() {
      const window = currentWindow()
      const batch: Array<RateLimitCount> = []
      const sent = new Map<string, number>()
      for (const [key, counter] of counters) {
        if (counter.window !== window) {
          counters.delete(key)
          continue
        }
        if (counter.pending === 0 && counter.known) continue
        const separator = key.indexOf("\u0000")
        batch.push({ resource: key.slice(0, separator), subject: key.slice(separator + 1), window, count: counter.pending })
        sent.set(key, counter.pending)
      }
      if (batch.length > 0) {
        const totals = yield* store.add(batch)
        for (const total of totals) {
          const key = `${total.resource}\u0000${total.subject}`
          const counter = counters.get(key)
          if (counter === undefined || counter.window !== total.window) continue
          counter.pending -= sent.get(key) ?? 0
          counter.shared = total.count
          counter.known = true
        }
      }
      if (pruned !== window) {
        yield* store.prune(window)
        pruned = window
      }
    })

    yield* Effect.forkScoped(Effect.forever(
      Queue.take(wake).pipe(
        Effect.andThen(flush),
        Effect.catchCause((cause) => Effect.logWarning("rate limit counts not shared", Cause.pretty(cause)))
      )
    ))
    // A wall-clock timer, whatever clock the effects run on (a test's stops).
    yield* Effect.acquireRelease(
      Effect.sync(() => setInterval(() => Queue.offerUnsafe(wake, undefined), FLUSH_INTERVAL_MS).unref()),
      (timer) => Effect.sync(() => clearInterval(timer))
    )
    // Counts of a process that stops reach the table too.
    yield* Effect.addFinalizer(() => Effect.ignore(flush))

    const limits = {
      authenticated: config.rateLimitAuthenticated,
      anonymous: config.rateLimitAnonymous,
      search: config.rateLimitSearch
    }

    return RateLimiter.of({
      budgetOf: (principal, address, resource) => {
        if (Option.isSome(principal)) {
          const user = principal.value.user
          if (limits.authenticated === 0 || (user.isAdmin && !config.rateLimitAdmins)) return undefined
          return resource === "search" && limits.search > 0
            ? { subject: `user:${user.id}`, resource, limit: Math.min(limits.search, limits.authenticated) }
            : { subject: `user:${user.id}`, resource: "core", limit: limits.authenticated }
        }
        if (limits.anonymous === 0) return undefined
        return resource === "search" && limits.search > 0
          ? { subject: `${ADDRESS}${address}`, resource, limit: Math.min(limits.search, limits.anonymous) }
          : { subject: `${ADDRESS}${address}`, resource: "core", limit: limits.anonymous }
      },
      state: (budget) => {
        const counter = counterOf(budget)
        const used = counter.shared + counter.pending
        return {
          limit: budget.limit,
          used,
          remaining: Math.max(0, budget.limit - used),
          reset: (counter.window + 1) * 3600
        }
      },
      spend: (budget) => {
        const counter = counterOf(budget)
        counter.pending++
        const near = counter.pending >= FLUSH_AT && budget.limit - counter.shared - counter.pending <= NEAR_LIMIT
        if (!counter.known || near) Queue.offerUnsafe(wake, undefined)
      },
      // Pending may go below 0 when the spend was already added to the table: the next flush adds -1.
      refund: (budget) => {
        const counter = counters.get(keyOf(budget))
        if (counter !== undefined && counter.window === currentWindow()) counter.pending--
      }
    })
  })
)
