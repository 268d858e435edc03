/**
 * DataChanges on PostgreSQL. Migration 0013's triggers notify `kiln_data_changes` at every commit
 * that changes a table, and the version moves on each notification, whatever made the commit: an
 * API request, a push over SSH, background work. The access version moves on each but those whose
 * payload is `content` (a repository's contents, migration 0023).
 *
 * On a server, several processes may share the database: each listens on a connection of its own;
 * until its listener is up, and whenever it is lost, the version is undefined so that nothing
 * derived from earlier reads is trusted. The embedded database's session hands its notifications to
 * the protocol bridge (PgliteBridge.listen): a listener there holds none of PGlite's one connection.
 */
import { PgClient } from "@effect/sql-pg"
import { Cause, Duration, Effect, Layer, Queue, Schedule } from "effect"
import { DataChanges } from "@kiln/domain/changes/DataChanges"
import * as PgliteBridge from "../PgliteBridge.ts"

export const channel = "kiln_data_changes"

/** The payload of a change to a repository's contents alone (migration 0023). */
const CONTENT = "content"

export interface Options {
  /** Wait before listening again after the listener was lost (milliseconds). */
  readonly retryInterval: number
}

export const layer = (options: Options = { retryInterval: 1_000 }) => Layer.effect(
  DataChanges,
  Effect.gen(function*() {
    let version = 0
    let accessVersion = 0
    const changed = () => {
      version++
      accessVersion++
    }
    const notified = (payload: string) => {
      version++
      if (payload !== CONTENT) accessVersion++
    }
    const pg = yield* PgClient.PgClient
    const embedded = PgliteBridge.embeddedOf(pg.config.stream)
    if (embedded !== undefined) {
      yield* Effect.acquireRelease(
        Effect.promise(() => PgliteBridge.listen(embedded, channel, notified)),
        (stop) => Effect.promise(stop)
      )
      return DataChanges.of({ version: () => version, accessVersion: () => accessVersion, changed })
    }

    let listening = false
    const listenOnce = Effect.scoped(Effect.gen(function*() {
      const notifications = yield* pg.listen(channel)
      // Whatever committed while nobody listened is covered by this move.
      changed()
      listening = true
      return yield* Effect.forever(Effect.tap(Queue.take(notifications), ({ payload }) => Effect.sync(() => notified(payload))))
    })).pipe(Effect.ensuring(Effect.sync(() => {
      listening = false
    })))
    yield* Effect.forkScoped(
      listenOnce.pipe(
        Effect.catchCause((cause) => Effect.logWarning("data change listener lost", Cause.pretty(cause))),
        Effect.repeat(Schedule.spaced(Duration.millis(options.retryInterval)))
      )
    )
    return DataChanges.of({
      version: () => (listening ? version : undefined),
      accessVersion: () => (listening ? accessVersion : undefined),
      changed
    })
  })
)
