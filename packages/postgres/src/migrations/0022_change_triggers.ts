/**
 * The `kiln_data_changes` trigger (0013) on the tables made since that feed an answer: 0013's note
 * that a later table needs it was missed by `deploy_keys` (0017) and `lfs_locks` (0018). Without it
 * a deploy key added or removed through one process left the others answering their remembered
 * `GET /repos/{owner}/{repo}/keys` with 304. The other later tables feed no answer (`signin_failures`,
 * `lfs_uploads`, `lfs_tokens`, `pending_directory_steps`), or move `repositories` themselves
 * (`lfs_references` keeps `repositories.lfs_size`, `lfs_objects` go with their references).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["deploy_keys", "lfs_locks"]) {
    yield* sql`
      CREATE TRIGGER kiln_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION kiln_data_changed()`
  }
})
