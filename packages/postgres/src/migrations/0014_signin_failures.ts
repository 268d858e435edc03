/**
 * Failed password sign-ins per key (`account:<id>`, `name:<lower name>`, `address:<ip>`) in the
 * window their first failure opened (stores/SignInFailureStoreSql.ts): one count for every process
 * on the database. They feed no JSON answer, so, like the rate-limit counters, no change trigger.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE signin_failures (
      key text PRIMARY KEY,
      window_started_at bigint NOT NULL,
      failures integer NOT NULL
    )`
  yield* sql`CREATE INDEX signin_failures_window ON signin_failures (window_started_at)`
})
