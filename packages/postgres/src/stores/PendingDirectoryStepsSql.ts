/**
 * The PendingDirectorySteps port on PostgreSQL (table `pending_directory_steps`). A mark is taken
 * back with a DELETE in the section's transaction, whose row lock makes a second taker wait for that
 * transaction's end.
 *
 * A mark must be committed before the step it guards, though the step's section usually runs in a
 * transaction opened around it (the change and its webhook deliveries commit together). On a
 * server the marks are written through a connection of their own, outside any transaction; one
 * connection, not the pool, whose connections those transactions may all hold. The embedded
 * database is one session, in which a transaction keeps every other statement waiting: there a
 * mark joins the transaction in progress, if any, and a crash of its one process inside such a
 * section leaves the directory as before marks existed (unadopted, for an administrator).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Schema } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient } from "effect/sql"
import { DirectoryUndoSteps, PendingDirectorySteps } from "@kiln/domain/repo/PendingDirectorySteps"
import { isServer } from "../coordination/Coordination.ts"
import { int } from "./Rows.ts"

const decodeUndo = Schema.decodeUnknownSync(Schema.fromJsonString(DirectoryUndoSteps))
const encodeUndo = Schema.encodeSync(Schema.fromJsonString(DirectoryUndoSteps))

export const layer = Layer.effect(
  PendingDirectorySteps,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient
    const marks = isServer(pg)
      ? yield* PgClient.make({ ...pg.config, applicationName: "kiln-directory-steps", maxConnections: 1 }).pipe(
        Effect.provide(Reactivity.layer),
        Effect.orDie
      )
      : sql
    return PendingDirectorySteps.of({
      mark: (key, undo) =>
        marks<{ id: unknown }>`INSERT INTO pending_directory_steps (lock_key, undo) VALUES (${key}, ${encodeUndo(undo)}::jsonb) RETURNING id`.pipe(
          Effect.map(([row]) => int(row?.id)),
          Effect.orDie
        ),
      take: (id) =>
        sql`DELETE FROM pending_directory_steps WHERE id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      replace: (id, steps) =>
        sql`UPDATE pending_directory_steps SET undo = ${encodeUndo(steps)}::jsonb WHERE id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      release: (id) => marks`DELETE FROM pending_directory_steps WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      list: (key) =>
        (key === undefined
          ? sql<{ id: unknown; lock_key: string; undo: string }>`
              SELECT id, lock_key, undo::text AS undo FROM pending_directory_steps ORDER BY id`
          : sql<{ id: unknown; lock_key: string; undo: string }>`
              SELECT id, lock_key, undo::text AS undo FROM pending_directory_steps WHERE lock_key = ${key} ORDER BY id`).pipe(
          Effect.map((rows) => rows.map((row) => ({ id: int(row.id), key: row.lock_key, undo: decodeUndo(row.undo) }))),
          Effect.orDie
        )
    })
  })
)
