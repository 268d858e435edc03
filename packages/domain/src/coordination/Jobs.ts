/**
 * Background work that must happen after a commit, at least once, by whichever process gets to it.
 *
 * A job is enqueued inside the transaction of the change it follows, so a rolled-back change never
 * leaves one and a committed change never loses one. Jobs are identified by `(kind, key)`: enqueuing
 * an existing pair does nothing, which makes "once per key" (a delivery, a periodic task's due time)
 * a fact of the database rather than of a process. A handler per kind runs the job; when it fails,
 * the kind's retry schedule says when to try again, or that it has failed for good. A job whose
 * runs keep ending without an outcome (each time the process running it stopped) is parked, failed
 * for good, after a few such runs, so that one that kills its process cannot do it forever.
 */
import { Context, type Effect, Schema } from "effect"
import type { RetrySchedule } from "./RetrySchedule.ts"

/** A job as a handler sees it. `attempts` counts this run. */
export interface Job {
  readonly id: number
  readonly kind: string
  readonly key: string
  /** The JSON value it was enqueued with. */
  readonly payload: unknown
  readonly attempts: number
  /** When it was due, unix milliseconds. */
  readonly runAt: number
}

/** A handler's verdict that this run did not do the job; the retry schedule decides what follows. */
export class JobFailed extends Schema.TaggedError<JobFailed>()("JobFailed", {
  message: Schema.String
}) {}

/**
 * A handler's verdict that the job cannot start yet (it waits for another): the run gives its slot
 * back and the job is due again after `delay` milliseconds, the run not counted as an attempt.
 */
export class JobDeferred extends Schema.TaggedError<JobDeferred>()("JobDeferred", {
  delay: Schema.Number
}) {}

export interface JobHandler<R = never> {
  readonly kind: string
  readonly retry: RetrySchedule
  /**
   * How long a run may take (milliseconds) before it counts as failed and another process may take
   * the job over: a process that died mid-run leaves its job to others after this long.
   */
  readonly lease: number
  /**
   * At most this many jobs of one fairness key (EnqueueOptions) run at once in a process; the
   * others of that key wait in the table, not in a slot, while other keys' jobs run.
   */
  readonly perKeyConcurrency?: number | undefined
  readonly run: (job: Job) => Effect.Effect<void, JobFailed | JobDeferred, R>
}

export interface EnqueueOptions {
  /** Unix milliseconds; absent: now. */
  readonly runAt?: number | undefined
  /** Whose job it is, for sharing the slots fairly (the handler's perKeyConcurrency). */
  readonly fairnessKey?: string | undefined
}

export class Jobs extends Context.Service<Jobs, {
  /**
   * Adds a job, inside the caller's transaction when there is one. False when a job of this kind
   * and key exists already (pending or done): nothing changes then.
   */
  readonly enqueue: (kind: string, key: string, payload: unknown, options?: EnqueueOptions) => Effect.Effect<boolean>
  /**
   * Makes an existing job due again now, with its attempts counted from zero, whether it is
   * pending, done or failed for good. False when there is no such job.
   */
  readonly rerun: (kind: string, key: string) => Effect.Effect<boolean>
}>()("@kiln/domain/coordination/Jobs") {}
