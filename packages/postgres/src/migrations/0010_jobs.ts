/**
 * Background jobs (coordination/JobsSql.ts): one row per `(kind, key)`, kept after it is done so
 * the key stays taken (a periodic task's due time runs once). Workers claim due rows with
 * `FOR UPDATE SKIP LOCKED` and hold them for a lease (`locked_until`); the partial index keeps the
 * claim's scan to pending jobs however long the history grows.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE jobs (
      id bigserial PRIMARY KEY,
      kind text NOT NULL,
      key text NOT NULL,
      payload jsonb NOT NULL,
      run_at timestamptz NOT NULL DEFAULT now(),
      attempts integer NOT NULL DEFAULT 0,
      locked_by text,
      locked_until timestamptz,
      done_at timestamptz,
      failed boolean NOT NULL DEFAULT false,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT jobs_kind_key UNIQUE (kind, key)
    )`
  yield* sql`CREATE INDEX jobs_pending_run_at ON jobs (run_at) WHERE done_at IS NULL`
  yield* sql`CREATE INDEX jobs_done_at ON jobs (done_at) WHERE done_at IS NOT NULL`
})
