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
 *
 * Two rules keep one job, or one owner's jobs, from taking the worker over, both in the claim:
 * - A job claimed after its lease ran out with no outcome was abandoned by the process running it
 *   (a crash, a kill). After MAX_ABANDONED_RUNS such runs it is parked (done, failed) instead of
 *   claimed: a job that kills its process stops being run rather than kill every process in turn.
 * - A kind with `perKeyConcurrency` runs at most that many jobs of one fairness key at once here;
 *   the claim skips a key at its limit, so its other jobs wait in the table without a slot.
 * A run that defers (JobDeferred) gives its slot back at once, its attempt uncounted.
 */
import { PgClient } from "@effect/sql-pg"
import { Cause, Duration, Effect, Exit, FiberSet, Layer, Option, PubSub, Queue, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { type Job, JobDeferred, type JobHandler } from "@kiln/domain/coordination/Jobs"
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

/**
 * How long the worker sleeps, in whole milliseconds: until the next job is due (rounded up, so it is
 * not polled early), at most the poll interval, at least 1. A timer of a fractional delay (the SQL
 * gives the wait as a float) made V8 widen a field of Node's Timeout objects from small integers to
 * doubles, which deoptimized Node's timer code that every HTTP request runs (its socket's timeout):
 * for a few seconds after the first such sleep, ~30 s after start, a server under load answered
 * ~20% slower.
 */
export const sleepMillis = (untilDue: number | undefined, pollInterval: number): number =>
  Math.max(1, Math.ceil(Math.min(pollInterval, untilDue ?? pollInterval)))

/** Runs of one job that may end with their process (no outcome written) before it is parked. */
export const MAX_ABANDONED_RUNS = 3

export const parkedMessage =
  `parked: its run ended without an outcome ${MAX_ABANDONED_RUNS} times (the process running it stopped each time)`

interface ClaimedRow {
  readonly id: unknown
  readonly kind: string
  readonly key: string
  readonly payload: string
  readonly attempts: unknown
  readonly run_at_ms: unknown
  readonly fairness_key: string | null
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
    // This worker's own wake-ups (a slot freed, a NOTIFY heard) and the process's in-process
    // signals, subscribed before the first claim so none is missed. Its own must not go through the
    // process's hub: another worker there could take the one signal this one sleeps on.
    const wakeUp = yield* Queue.sliding<void>(1)
    const signals = yield* PubSub.subscribe(yield* JobWakeUp)
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(PubSub.take(signals), Queue.offer(wakeUp, undefined))))
    const workerId = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
    const byKind = new Map(handlers.map((handler) => [handler.kind, handler]))
    const kinds = JSON.stringify(Object.fromEntries(handlers.map((handler) =>
      [handler.kind, { lease: handler.lease, perKey: handler.perKeyConcurrency ?? null }])))
    const wake = Queue.offer(wakeUp, undefined).pipe(Effect.asVoid)

    /** Jobs of each fairness key running here, with the most its kind allows. */
    const runningByKey = new Map<string, { count: number; limit: number }>()
    /** Keys at their limit, and how many more each other running key may start. */
    const shares = () => {
      const full: Array<string> = []
      const allowance: Record<string, number> = {}
      for (const [key, { count, limit }] of runningByKey) {
        if (count >= limit) full.push(key)
        else allowance[key] = limit - count
      }
      return { full: JSON.stringify(full), allowance: JSON.stringify(allowance) }
    }

    const claim = (limit: number) => {
      const { full, allowance } = shares()
      // `candidates` locks the first due jobs of keys not at their limit; `chosen` keeps, per key,
      // what its allowance lets start; of those, one abandoned too often is parked, the rest claimed.
      return sql<ClaimedRow>`
        WITH kinds AS (
          SELECT key AS kind, (value->>'lease')::bigint AS lease_ms, (value->>'perKey')::int AS per_key
          FROM jsonb_each(${kinds}::jsonb)),
        candidates AS (
          SELECT id, kind, fairness_key, run_at, locked_until IS NOT NULL AS abandoned FROM jobs
          WHERE done_at IS NULL AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
            AND kind IN (SELECT kind FROM kinds)
            AND (fairness_key IS NULL OR fairness_key NOT IN (SELECT jsonb_array_elements_text(${full}::jsonb)))
          ORDER BY run_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED),
        chosen AS (
          SELECT ranked.id, ranked.abandoned FROM (
            SELECT candidates.*, row_number() OVER (PARTITION BY fairness_key ORDER BY run_at, id) AS rank
            FROM candidates) ranked
          JOIN kinds ON kinds.kind = ranked.kind
          WHERE ranked.fairness_key IS NULL OR kinds.per_key IS NULL
            OR ranked.rank <= coalesce((${allowance}::jsonb ->> ranked.fairness_key)::int, kinds.per_key)),
        parked AS (
          UPDATE jobs SET done_at = now(), failed = true, locked_by = NULL, locked_until = NULL,
            abandoned_runs = jobs.abandoned_runs + 1, last_error = ${parkedMessage}
          FROM chosen
          WHERE jobs.id = chosen.id AND chosen.abandoned AND jobs.abandoned_runs + 1 >= ${MAX_ABANDONED_RUNS}
          RETURNING jobs.id)
        UPDATE jobs SET locked_by = ${workerId}, attempts = jobs.attempts + 1,
          locked_until = now() + kinds.lease_ms * interval '1 millisecond',
          abandoned_runs = jobs.abandoned_runs + (CASE WHEN chosen.abandoned THEN 1 ELSE 0 END)
        FROM chosen, kinds
        WHERE jobs.id = chosen.id AND jobs.kind = kinds.kind
          AND NOT (chosen.abandoned AND jobs.abandoned_runs + 1 >= ${MAX_ABANDONED_RUNS})
        RETURNING jobs.id, jobs.kind, jobs.key, jobs.payload::text AS payload, jobs.attempts,
          (extract(epoch FROM jobs.run_at) * 1000)::float8 AS run_at_ms, jobs.fairness_key`
    }

    /** Milliseconds until a pending job of ours becomes claimable, if any (keys at their limit wait for a wake-up). */
    const untilNextDue = Effect.suspend(() =>
      sql<{ wait_ms: unknown }>`
        SELECT (extract(epoch FROM min(greatest(run_at, coalesce(locked_until, run_at))) - now()) * 1000)::float8 AS wait_ms
        FROM jobs
        WHERE done_at IS NULL AND kind IN (SELECT jsonb_object_keys(${kinds}::jsonb))
          AND (fairness_key IS NULL OR fairness_key NOT IN (SELECT jsonb_array_elements_text(${shares().full}::jsonb)))`
    ).pipe(
      // Clamped here, not with SQL's greatest(0, …), which would turn "nothing pending" (NULL) into
      // 0 and make the worker poll without pause while a key is at its limit.
      Effect.map(([row]) => row?.wait_ms === null || row?.wait_ms === undefined ? undefined : Math.max(0, Number(row.wait_ms)))
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
      const deferred = Cause.findErrorOption(exit.cause).pipe(Option.filter((error) => error instanceof JobDeferred))
      if (Option.isSome(deferred)) {
        return sql`UPDATE jobs SET run_at = now() + ${deferred.value.delay} * interval '1 millisecond',
          locked_by = NULL, locked_until = NULL, attempts = attempts - 1 WHERE ${ours(job)}`
      }
      const message = errorText(exit.cause)
      const delay = handler.retry(job.attempts)
      return delay === undefined
        ? sql`UPDATE jobs SET done_at = now(), failed = true, locked_by = NULL, locked_until = NULL,
            last_error = ${message} WHERE ${ours(job)}`
        : sql`UPDATE jobs SET run_at = now() + ${delay} * interval '1 millisecond', locked_by = NULL,
            locked_until = NULL, last_error = ${message} WHERE ${ours(job)}`
    }

    const runJob = (job: Job, fairnessKey: string | null) =>
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
        Effect.ensuring(Effect.andThen(Effect.sync(() => leaveKey(fairnessKey)), wake))
      )

    const enterKey = (kind: string, key: string | null) => {
      const limit = byKind.get(kind)?.perKeyConcurrency
      if (key === null || limit === undefined) return
      const entry = runningByKey.get(key) ?? { count: 0, limit }
      entry.count++
      runningByKey.set(key, entry)
    }
    const leaveKey = (key: string | null) => {
      const entry = key === null ? undefined : runningByKey.get(key)
      if (key === null || entry === undefined) return
      entry.count--
      if (entry.count <= 0) runningByKey.delete(key)
    }

    const running = yield* FiberSet.make<void, never>()

    const step = Effect.gen(function*() {
      const free = options.concurrency - (yield* FiberSet.size(running))
      const claimed = free > 0 ? yield* claim(free) : []
      for (const row of claimed) {
        enterKey(row.kind, row.fairness_key)
        yield* FiberSet.run(running, runJob(toJob(row), row.fairness_key))
      }
      if (claimed.length > 0 && claimed.length === free) return
      const next = free > 0 ? yield* untilNextDue : undefined
      yield* Queue.take(wakeUp).pipe(Effect.timeoutOption(Duration.millis(sleepMillis(next, options.pollInterval))))
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
