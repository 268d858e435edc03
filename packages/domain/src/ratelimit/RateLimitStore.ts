/**
 * Request counts per caller and budget, shared by every process on the database. Processes count
 * in memory and add their counts here in batches; the answer is each counter's total so far, which
 * includes what the other processes added.
 */
import { Context, type Effect } from "effect"

/** One caller's requests against one budget in one window (the hour starting at `window` × 3600 s). */
export interface RateLimitCount {
  readonly subject: string
  readonly resource: string
  readonly window: number
  readonly count: number
}

export class RateLimitStore extends Context.Service<RateLimitStore, {
  /** Adds each count to its counter; answers every counter's new total (in `count`). */
  readonly add: (counts: ReadonlyArray<RateLimitCount>) => Effect.Effect<ReadonlyArray<RateLimitCount>>
  /** Drops the counters of windows before `window`. */
  readonly prune: (window: number) => Effect.Effect<void>
}>()("@kiln/domain/ratelimit/RateLimitStore") {}
