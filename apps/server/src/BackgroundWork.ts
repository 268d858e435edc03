/**
 * This process's job worker, alongside every other Kiln process on the database: webhook
 * deliveries (and their history pruning), and every periodic task of the application, each run
 * once per due time across all processes (PeriodicTask), whichever process takes it: the job
 * history cleanup, the archive cache's pass over the disk, the collection of unreferenced LFS
 * objects, and ANALYZE on the embedded database.
 */
import { Effect, Layer } from "effect"
import { join } from "node:path"
import type { SqlClient } from "effect/sql"
import type { Jobs } from "@kiln/domain/coordination/Jobs"
import type * as PeriodicTask from "@kiln/domain/coordination/PeriodicTask"
import { LfsCollection } from "@kiln/domain/lfs/LfsCollection"
import { WebhookDeliveries } from "@kiln/domain/webhook/WebhookDeliveries"
import { archivePruningTask } from "@kiln/git"
import { type Client, EmbeddedStatistics } from "@kiln/postgres"
import * as Coordination from "@kiln/postgres/coordination/Coordination"
import * as JobHistory from "@kiln/postgres/coordination/JobHistory"
import type * as JobsSql from "@kiln/postgres/coordination/JobsSql"
import * as JobWorker from "@kiln/postgres/coordination/JobWorker"
import { KilnConfig } from "./config/KilnConfig.ts"

export const layer: Layer.Layer<never, never, Client | Jobs | JobsSql.JobWakeUp | KilnConfig | WebhookDeliveries | LfsCollection> = Layer.unwrap(
  Effect.gen(function*() {
    const server = yield* Coordination.acrossProcesses
    const config = yield* KilnConfig
    const deliveries = yield* WebhookDeliveries
    const archives = archivePruningTask(join(config.dataDir, "archives"), config.archiveCacheMaxSize)
    const lfs = (yield* LfsCollection).task
    // A server's autovacuum keeps its statistics; the embedded database needs ANALYZE.
    const tasks: ReadonlyArray<PeriodicTask.PeriodicTask<SqlClient.SqlClient>> = server
      ? [JobHistory.task(), archives, lfs]
      : [JobHistory.task(), archives, lfs, EmbeddedStatistics.task()]
    const scheduled = Layer.effectDiscard(Effect.gen(function*() {
      yield* deliveries.schedule
      yield* Effect.forEach(tasks, (task) => task.schedule, { discard: true })
      // The embedded database serves this process alone: its first statistics need not wait for a due time.
      if (!server) yield* Effect.forkScoped(EmbeddedStatistics.analyzeNow)
    }))
    return Layer.merge(
      JobWorker.layer([...deliveries.handlers, ...tasks.map((task) => task.handler)], { ...JobWorker.defaultOptions, listen: server }),
      scheduled
    )
  })
)
