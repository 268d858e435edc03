/**
 * A push's writes told apart from the changes that decide who may reach a repository. A push
 * rewrites its repository's branch table, its pending mark and the row's size, emptiness, default
 * branch and update time; every one of those commits notified `kiln_data_changes` like any other,
 * so each push made every process forget the git access decisions it keeps (GitDecisions.ts), and
 * the next fetch or push signed in and read its repository again. Those writes now notify with the
 * payload `content` (the others keep the empty one): the data version still moves on them (entity
 * tags), the access version does not (coordination/DataChangesPg.ts).
 *
 * A repository update is told apart row by row, by what it changed: only when the row as it was and
 * as it is are equal but for those four columns is it `content`. A column added later therefore
 * counts as an access change until it is named here.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION kiln_content_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('kiln_data_changes', 'content');
      RETURN NULL;
    END
    $$`
  yield* sql`
    CREATE FUNCTION kiln_repository_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('kiln_data_changes', CASE
        WHEN to_jsonb(OLD) - '{size,is_empty,default_branch,updated_at}'::text[]
          = to_jsonb(NEW) - '{size,is_empty,default_branch,updated_at}'::text[] THEN 'content'
        ELSE '' END);
      RETURN NULL;
    END
    $$`
  for (const table of ["branches", "branch_sync_pending"]) {
    yield* sql`DROP TRIGGER kiln_data_changed ON ${sql(table)}`
    yield* sql`
      CREATE TRIGGER kiln_data_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION kiln_content_changed()`
  }
  yield* sql`DROP TRIGGER kiln_data_changed ON repositories`
  yield* sql`
    CREATE TRIGGER kiln_data_changed AFTER INSERT OR DELETE OR TRUNCATE ON repositories
    FOR EACH STATEMENT EXECUTE FUNCTION kiln_data_changed()`
  yield* sql`
    CREATE TRIGGER kiln_data_changed_row AFTER UPDATE ON repositories
    FOR EACH ROW EXECUTE FUNCTION kiln_repository_changed()`
})
