/**
 * A fresh database on the test PostgreSQL server for several server processes to share, with a
 * client through which the test reads and changes it; both live until `scope` closes.
 */
import { Context, Effect, Layer, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { Database } from "@kiln/postgres"
import * as TestDatabase from "@kiln/postgres/testing/TestDatabase"

export const sharedDatabase = async (serverUrl: string, scope: Scope.Scope) => {
  const databaseUrl = await Effect.runPromise(TestDatabase.serverDatabase(Redacted.make(serverUrl)).pipe(Scope.provide(scope)))
  const context = await Effect.runPromise(Layer.build(Database.layerServer(databaseUrl)).pipe(Scope.provide(scope)))
  const sql = Context.get(context, SqlClient.SqlClient)
  const query = <A extends object>(statement: Effect.Effect<ReadonlyArray<A>, unknown>) => Effect.runPromise(statement)
  return { databaseUrl, sql, query }
}
