/**
 * The Jobs port on PostgreSQL: rows of `jobs` (migration 0010), written with the caller's
 * transaction. A new or re-run job wakes the workers: on a server through `NOTIFY`, which
 * PostgreSQL delivers to every listening process at commit (never on rollback); on the embedded
 * database, whose one connection a listener must not pin, through an in-process signal. The
 * in-process signal may fire before the enqueuing transaction commits; the worker's claim then
 * queues behind that transaction on the single connection and sees its outcome.
 */
import { Context, Effect, Layer, PubSub } from "effect"
import { SqlClient } from "effect/sql"
import { Jobs } from "@kiln/domain/coordination/Jobs"

/** The channel workers listen on; the payload is the job's kind. */
export const channel = "kiln_jobs"

/**
 * Wakes every worker of this process: each subscribes, so one worker taking a signal never hides
 * it from another. A sliding hub of one, so signals coalesce.
 */
export class JobWakeUp extends Context.Service<JobWakeUp, PubSub.PubSub<void>>()("@kiln/postgres/coordination/JobWakeUp") {}

export interface Options {
  /** True on a PostgreSQL server (wake-ups through NOTIFY); false on the embedded database. */
  readonly notify: boolean
}

export const layer = (options: Options): Layer.Layer<Jobs | JobWakeUp, never, SqlClient.SqlClient> =>
  Layer.effectContext(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const wakeUp = yield* PubSub.sliding<void>(1)
    const announce = (kind: string) =>
      options.notify
        ? sql`SELECT pg_notify(${channel}, ${kind})`.pipe(Effect.asVoid)
        : PubSub.publish(wakeUp, undefined).pipe(Effect.asVoid)

    const jobs = Jobs.of({
      enqueue: (kind, key, payload, enqueueOptions) =>
        Effect.gen(function*() {
          const runAt = enqueueOptions?.runAt
          const rows = yield* sql<{ id: unknown }>`
            INSERT INTO jobs (kind, key, payload, run_at, fairness_key)
            VALUES (${kind}, ${key}, ${JSON.stringify(payload ?? null)}::jsonb,
              ${runAt === undefined ? sql`now()` : sql`to_timestamp(${runAt}::float8 / 1000)`},
              ${enqueueOptions?.fairnessKey ?? null})
            ON CONFLICT (kind, key) DO NOTHING
            RETURNING id`
          if (rows.length === 0) return false
          yield* announce(kind)
          return true
        }).pipe(Effect.orDie),
      rerun: (kind, key) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ id: unknown }>`
            UPDATE jobs SET run_at = now(), attempts = 0, abandoned_runs = 0, done_at = NULL, failed = false,
              last_error = NULL, locked_by = NULL, locked_until = NULL
            WHERE kind = ${kind} AND key = ${key}
            RETURNING id`
          if (rows.length === 0) return false
          yield* announce(kind)
          return true
        }).pipe(Effect.orDie)
    })
    return Context.make(Jobs, jobs).pipe(Context.add(JobWakeUp, wakeUp))
  }))
