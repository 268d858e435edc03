/**
 * A task that runs every `every` milliseconds, once per due time across all processes.
 *
 * Due times are multiples of `every` since the epoch, and each is a job keyed by its time: every
 * process may schedule the next one (at start, and after each run), and the `(kind, key)` uniqueness
 * of jobs keeps exactly one. A run that fails is not retried; the next due time comes anyway.
 */
import { Clock, Effect } from "effect"
import { type JobFailed, type JobHandler, Jobs } from "./Jobs.ts"
import * as RetrySchedule from "./RetrySchedule.ts"

/** The first due time strictly after `after` (unix milliseconds). */
export const nextDueTime = (every: number, after: number): number => Math.floor(after / every) * every + every

export const dueTimeKey = (dueTime: number): string => new Date(dueTime).toISOString()

export interface PeriodicTask<R> {
  /** Register with the job worker. */
  readonly handler: JobHandler<R | Jobs>
  /** Schedules the next due time unless some process has already; run at every start. */
  readonly schedule: Effect.Effect<void, never, Jobs>
}

export const make = <R>(options: {
  readonly kind: string
  /** Milliseconds between due times. */
  readonly every: number
  /** Milliseconds one run may take. */
  readonly lease: number
  readonly run: Effect.Effect<void, JobFailed, R>
}): PeriodicTask<R> => {
  const scheduleAfter = (after: number) =>
    Effect.gen(function*() {
      const jobs = yield* Jobs
      const due = nextDueTime(options.every, after)
      return yield* jobs.enqueue(options.kind, dueTimeKey(due), null, { runAt: due })
    })
  return {
    handler: {
      kind: options.kind,
      retry: RetrySchedule.never,
      lease: options.lease,
      run: (job) =>
        options.run.pipe(
          Effect.ensuring(
            // After a long outage, skip the missed due times rather than running them all.
            Effect.flatMap(Clock.currentTimeMillis, (now) => scheduleAfter(Math.max(job.runAt, now)))
          )
        )
    },
    schedule: Effect.flatMap(Clock.currentTimeMillis, scheduleAfter).pipe(Effect.asVoid)
  }
}
