/**
 * This process's job worker, with every periodic task of the application: each runs once per due
 * time across all processes on the database (PeriodicTask), whichever process takes it.
 */
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import type { Jobs } from "@kiln/domain/coordination/Jobs"
import type * as PeriodicTask from "@kiln/domain/coordination/PeriodicTask"
import { type Client, EmbeddedStatistics } from "@kiln/postgres"
import * as Coordination from "@kiln/postgres/coordination/Coordination"
import * as JobHistory from "@kiln/postgres/coordination/JobHistory"
import type * as JobsSql from "@kiln/postgres/coordination/JobsSql"
import * as JobWorker from "@kiln/postgres/coordination/JobWorker"

export const layer: Layer.Layer<never, never, Client | Jobs | JobsSql.JobWakeUp> = Layer.unwrap(
  Effect.gen(function*() {
    const server = yield* Coordination.acrossProcesses
    // A server's autovacuum keeps its statistics; the embedded database needs ANALYZE.
    const tasks: ReadonlyArray<PeriodicTask.PeriodicTask<SqlClient.SqlClient>> = server
      ? [JobHistory.task()]
      : [JobHistory.task(), EmbeddedStatistics.task()]
    const scheduled = Layer.effectDiscard(Effect.gen(function*() {
      yield* Effect.forEach(tasks, (task) => task.schedule, { discard: true })
      // The embedded database serves this process alone: its first statistics need not wait for a due time.
      if (!server) yield* Effect.forkScoped(EmbeddedStatistics.analyzeNow)
    }))
    return Layer.merge(
      JobWorker.layer(tasks.map((task) => task.handler), { ...JobWorker.defaultOptions, listen: server }),
      scheduled
    )
  })
)
