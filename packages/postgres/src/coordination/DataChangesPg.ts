/**
 * DataChanges on PostgreSQL. On a server, several processes may share the database: each listens to
 * `kiln_data_changes` (migration 0013's triggers notify it at every commit that changes a table) and
 * moves its version on each notification; until its listener is up, and whenever it is lost, the
 * version is undefined so that nothing derived from earlier reads is trusted. The embedded database
 * has one process, which records its own changes (`changed`), and must not pin PGlite's single
 * connection with a listener.
 */
import { PgClient } from "@effect/sql-pg"
import { Cause, Duration, Effect, Layer, Queue, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { DataChanges } from "@kiln/domain/changes/DataChanges"

export const channel = "kiln_data_changes"

/** Whether the client reaches PGlite (one process) rather than a server. */
export const isEmbedded = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ embedded: boolean }>`SELECT version() LIKE '%PGlite%' AS embedded`
  return rows[0]?.embedded === true
})

export interface Options {
  /** Wait before listening again after the listener was lost (milliseconds). */
  readonly retryInterval: number
}

export const layer = (options: Options = { retryInterval: 1_000 }) => Layer.effect(
  DataChanges,
  Effect.gen(function*() {
    let version = 0
    const changed = () => {
      version++
    }
    if (yield* Effect.orDie(isEmbedded)) return DataChanges.of({ version: () => version, changed })

    let listening = false
    const pg = yield* PgClient.PgClient
    const listenOnce = Effect.scoped(Effect.gen(function*() {
      const notifications = yield* pg.listen(channel)
      // Whatever committed while nobody listened is covered by this move.
      changed()
      listening = true
      return yield* Effect.forever(Effect.tap(Queue.take(notifications), () => Effect.sync(changed)))
    })).pipe(Effect.ensuring(Effect.sync(() => {
      listening = false
    })))
    yield* Effect.forkScoped(
      listenOnce.pipe(
        Effect.catchCause((cause) => Effect.logWarning("data change listener lost", Cause.pretty(cause))),
        Effect.repeat(Schedule.spaced(Duration.millis(options.retryInterval)))
      )
    )
    return DataChanges.of({ version: () => (listening ? version : undefined), changed })
  })
)
