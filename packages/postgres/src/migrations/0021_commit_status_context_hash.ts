/**
 * `commit_statuses.context_hash`: the SHA-256 of a status's context (hex), by which the latest status
 * of each context is found, as Forgejo groups by its `context_hash`. A context has no length limit
 * (0016), and grouping a commit's statuses by the text itself read all of it: 43 statuses with 3-MB
 * contexts made every anonymous combined-status request cost a second of the database's time.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE commit_statuses ADD COLUMN context_hash text`
  yield* sql`UPDATE commit_statuses SET context_hash = encode(sha256(convert_to(context, 'UTF8')), 'hex')`
  yield* sql`ALTER TABLE commit_statuses ALTER COLUMN context_hash SET NOT NULL`
  yield* sql`CREATE INDEX commit_statuses_context_hash ON commit_statuses (repo_id, sha, context_hash, index DESC)`
})
