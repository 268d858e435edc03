/**
 * Finished jobs are kept so that their `(kind, key)` stays taken (a periodic task's due time runs
 * once); a day's due times later nobody enqueues those keys again. This periodic task deletes the
 * jobs finished more than `keep` ago, once per due time across all processes.
 */
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { JobFailed } from "@kiln/domain/coordination/Jobs"
import * as PeriodicTask from "@kiln/domain/coordination/PeriodicTask"

export const task = (options: { readonly every: number; readonly keep: number } = {
  every: Duration.toMillis(Duration.hours(1)),
  keep: Duration.toMillis(Duration.days(7))
}) =>
  PeriodicTask.make({
    kind: "job-history-cleanup",
    every: options.every,
    lease: Duration.toMillis(Duration.minutes(10)),
    run: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM jobs WHERE done_at < now() - ${options.keep} * interval '1 millisecond'`
    }).pipe(Effect.mapError((error) => new JobFailed({ message: error.message })))
  })
