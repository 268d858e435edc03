/**
 * Repositories whose branch table may lag behind their refs: a row is written (and committed)
 * before a ref-changing git step and removed once the table has been brought up to date, so a
 * process that dies in between leaves the row, and the next push, read or start re-reads the refs.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE branch_sync_pending (
      repo_id bigint PRIMARY KEY REFERENCES repositories (id) ON DELETE CASCADE,
      marked_at timestamptz NOT NULL DEFAULT now()
    )`
})
