/**
 * A process's job worker: claims due jobs of the kinds it has handlers for, runs them, and records
 * the outcome. Any number of processes may run one on the same database.
 *
 * Claiming is one statement (`FOR UPDATE SKIP LOCKED`, so concurrent claimers never take the same
 * row and never wait on each other) that also sets a lease: a job whose process died mid-run is
 * claimable again once `locked_until` passes. Outcomes are written only while the lease is still
 * this worker's run (`locked_by` and `attempts` unchanged), so a run that outlived its lease cannot
 * overwrite the run that took over. The worker sleeps until woken (NOTIFY or in-process), until the
 * next pending job is due, or for the poll interval, whichever comes first.
 */
import { PgClient } from "@effect/sql-pg"
import { Cause, Duration, Effect, Exit, FiberSet, Layer, Option, Queue, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import type { Job, JobHandler } from "@kiln/domain/coordination/Jobs"
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { channel, JobWakeUp } from "./JobsSql.ts"

export interface Options {
  /** Jobs run at once by this process. */
  readonly concurrency: number
  /** Longest sleep without a wake-up (milliseconds): the fallback when a NOTIFY is missed. */
  readonly pollInterval: number
  /** True on a PostgreSQL server: listen for NOTIFY. */
  readonly listen: boolean
}

export const defaultOptions = { concurrency: 16, pollInterval: 5_000 } as const

interface ClaimedRow {
  readonly id: unknown
  readonly kind: string
  readonly key: string
  readonly payload: string
  readonly attempts: unknown
  readonly run_at_ms: unknown
}

const toJob = (row: ClaimedRow): Job => ({
  id: Number(row.id),
  kind: row.kind,
  key: row.key,
  payload: JSON.parse(row.payload),
  attempts: Number(row.attempts),
  runAt: Number(row.run_at_ms)
})

const errorText = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    return typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
  }
  return Cause.pretty(cause)
}

export const layer = <R>(
  handlers: ReadonlyArray<JobHandler<R>>,
  options: Options
): Layer.Layer<never, never, SqlClient.SqlClient | PgClient.PgClient | JobWakeUp | R> =>
  Layer.effectDiscard(Effect.gen(function*() {
    if (handlers.length === 0) return
    const sql = yield* SqlClient.SqlClient
    const wakeUp = yield* JobWakeUp
    const workerId = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
    const byKind = new Map(handlers.map((handler) => [handler.kind, handler]))
    const leases = JSON.stringify(Object.fromEntries(handlers.map((handler) => [handler.kind, handler.lease])))
    const wake = Queue.offer(wakeUp, undefined).pipe(Effect.asVoid)

    const claim = (limit: number) =>
      sql<ClaimedRow>`
        WITH leases AS (SELECT key AS kind, value::bigint AS lease_ms FROM jsonb_each_text(${leases}::jsonb))
        UPDATE jobs SET locked_by = ${workerId}, attempts = jobs.attempts + 1,
          locked_until = now() + leases.lease_ms * interval '1 millisecond'
        FROM leases
        WHERE jobs.kind = leases.kind AND jobs.id IN (
          SELECT id FROM jobs
          WHERE done_at IS NULL AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
            AND kind IN (SELECT kind FROM leases)
          ORDER BY run_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING jobs.id, jobs.kind, jobs.key, jobs.payload::text AS payload, jobs.attempts,
          (extract(epoch FROM jobs.run_at) * 1000)::float8 AS run_at_ms`.pipe(Effect.map((rows) => rows.map(toJob)))

    /** Milliseconds until a pending job of ours becomes claimable, if any. */
    const untilNextDue = sql<{ wait_ms: unknown }>`
      SELECT greatest(0, extract(epoch FROM min(greatest(run_at, coalesce(locked_until, run_at))) - now()) * 1000)::float8
        AS wait_ms
      FROM jobs
      WHERE done_at IS NULL AND kind IN (SELECT jsonb_object_keys(${leases}::jsonb))`.pipe(
      Effect.map(([row]) => row?.wait_ms === null || row?.wait_ms === undefined ? undefined : Number(row.wait_ms))
    )

    const ours = (job: Job) => sql`id = ${job.id} AND locked_by = ${workerId} AND attempts = ${job.attempts}`

    const finish = (job: Job, handler: JobHandler<R>, exit: Exit.Exit<unknown, unknown>) => {
      if (Exit.isSuccess(exit)) {
        return sql`UPDATE jobs SET done_at = now(), locked_by = NULL, locked_until = NULL, last_error = NULL
          WHERE ${ours(job)}`
      }
      if (Cause.hasInterruptsOnly(exit.cause)) {
        // Shutting down: hand the job back untouched rather than leave it leased.
        return sql`UPDATE jobs SET locked_by = NULL, locked_until = NULL, attempts = attempts - 1 WHERE ${ours(job)}`
      }
      const message = errorText(exit.cause)
      const delay = handler.retry(job.attempts)
      return delay === undefined
        ? sql`UPDATE jobs SET done_at = now(), failed = true, locked_by = NULL, locked_until = NULL,
            last_error = ${message} WHERE ${ours(job)}`
        : sql`UPDATE jobs SET run_at = now() + ${delay} * interval '1 millisecond', locked_by = NULL,
            locked_until = NULL, last_error = ${message} WHERE ${ours(job)}`
    }

    const runJob = (job: Job) =>
      Effect.gen(function*() {
        const handler = byKind.get(job.kind)
        if (handler === undefined) return
        const exit = yield* handler.run(job).pipe(
          Effect.timeoutOrElse({
            duration: Duration.millis(handler.lease),
            orElse: () => Effect.fail(`did not finish within its lease of ${handler.lease} ms`)
          }),
          Effect.exit
        )
        yield* Effect.uninterruptible(finish(job, handler, exit))
      }).pipe(
        Effect.catchCause((cause) => Effect.logWarning("job outcome not recorded", job.kind, job.key, Cause.pretty(cause))),
        Effect.ensuring(wake)
      )

    const running = yield* FiberSet.make<void, never>()

    const step = Effect.gen(function*() {
      const free = options.concurrency - (yield* FiberSet.size(running))
      const claimed = free > 0 ? yield* claim(free) : []
      for (const job of claimed) yield* FiberSet.run(running, runJob(job))
      if (claimed.length > 0 && claimed.length === free) return
      const next = free > 0 ? yield* untilNextDue : undefined
      const sleep = Math.min(options.pollInterval, next ?? options.pollInterval)
      yield* Queue.take(wakeUp).pipe(Effect.timeoutOption(Duration.millis(Math.max(1, sleep))))
    }).pipe(
      Effect.catchCause((cause) =>
        Effect.logWarning("job claim failed", Cause.pretty(cause)).pipe(
          Effect.andThen(Effect.sleep(Duration.millis(options.pollInterval)))
        )
      )
    )
    yield* Effect.forkScoped(Effect.forever(step))

    if (options.listen) {
      const pg = yield* PgClient.PgClient
      const listenOnce = Effect.scoped(Effect.gen(function*() {
        const notifications = yield* pg.listen(channel)
        // Anything enqueued while no one listened is claimable now.
        yield* wake
        return yield* Effect.forever(Effect.andThen(Queue.take(notifications), wake))
      }))
      yield* Effect.forkScoped(
        listenOnce.pipe(
          Effect.catchCause((cause) => Effect.logWarning("job listener lost", Cause.pretty(cause))),
          Effect.repeat(Schedule.spaced(Duration.millis(options.pollInterval)))
        )
      )
    }
  }))
