/**
 * The coordination primitives (Jobs, WriteLocks, Changes) over the database client in context,
 * across processes on a PostgreSQL server and in-process on the embedded database, which serves
 * one process only. The client tells which it is: the embedded one is reached through a stream.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import * as ChangesSql from "./ChangesSql.ts"
import * as JobsSql from "./JobsSql.ts"
import * as WriteLocksSql from "./WriteLocksSql.ts"

/** True when the client is a PostgreSQL server's (other processes may share it). */
export const isServer = (pg: PgClient.PgClient): boolean => pg.config.stream === undefined

/** Whether the database in context may be shared with other processes. */
export const acrossProcesses: Effect.Effect<boolean, never, PgClient.PgClient> = Effect.gen(function*() {
  return isServer(yield* PgClient.PgClient)
})

export const layer = Layer.unwrap(Effect.gen(function*() {
  const acrossProcesses = isServer(yield* PgClient.PgClient)
  return Layer.mergeAll(
    // A release is announced through the changes channel, where the waiting sections hear it.
    WriteLocksSql.layer({ acrossProcesses }).pipe(Layer.provideMerge(ChangesSql.layer({ acrossProcesses }))),
    JobsSql.layer({ notify: acrossProcesses })
  )
}))

export type Services = Layer.Success<typeof layer>

