/**
 * Input of any length, and Forgejo v15's fields (issue 27):
 * - A commit status's `context` has no length limit (Forgejo keeps it as TEXT), so it cannot be a
 *   B-tree key: a long context failed the index ("index row requires 12040 bytes") and the request
 *   answered 500. No query looks a status up by its context (the latest per context are grouped
 *   among one commit's statuses, found by `commit_statuses_number`).
 * - A key's `updated_at` (Forgejo's PublicKey.UpdatedUnix): when it was added, until something
 *   records its use.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP INDEX commit_statuses_context`
  yield* sql`ALTER TABLE public_keys ADD COLUMN updated_at bigint`
  yield* sql`UPDATE public_keys SET updated_at = created_at`
  yield* sql`ALTER TABLE public_keys ALTER COLUMN updated_at SET NOT NULL`
})
