/**
 * Repository directory steps not yet settled (domain repo/PendingDirectorySteps.ts): a row is
 * committed before a step that makes, moves or removes a repository directory, and deleted by the
 * transaction that commits the step's rows. A row that outlives its section's write lock is a step
 * to undo. `undo` is the JSON of the domain's DirectoryUndo steps.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE pending_directory_steps (
      id bigserial PRIMARY KEY,
      lock_key text NOT NULL,
      undo jsonb NOT NULL,
      marked_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX pending_directory_steps_lock_key ON pending_directory_steps (lock_key)`
})
