/**
 * The repository search epoch: one counter that every committed change to what a repository
 * search condition reads moves forward, in that same commit. Searches keep the count behind
 * `X-Total-Count` per condition and reuse it while the epoch read with their page is the one it
 * was counted at (stores/RepositorySearchSql.ts).
 *
 * The counter moves at commit (deferred constraint triggers), so a transaction holds its row lock
 * only while it commits: writers do not queue behind each other's longer work (creating a
 * repository writes git objects inside its transaction). Row triggers, each transaction moving it
 * once (a transaction-local flag). Watched, and why nothing else:
 * - repositories: rows added and removed, and the columns conditions read (owner, name,
 *   description, the flags); not sizes, counters or times, which pushes and uploads change;
 * - users: visibility, name (the `owner/name` keyword) and kind, and deletion; a new account owns
 *   and reaches nothing yet;
 * - collaborations, org_users, teams, team_users, team_repos: every change (accessibility is made
 *   of them, and they change rarely).
 * A search condition that reads anything else must be watched here too.
 *
 * With it, a trigram index on account names for the `owner/name` keyword.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** `name` moves the epoch at the commit of a transaction with `events` on `table` (rows meeting `when`). */
const watch = (name: string, table: string, events: string, when = "TRUE") =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe(`CREATE CONSTRAINT TRIGGER ${name} AFTER ${events} ON ${table}
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION repository_search_changed()`))

const REPOSITORY_COLUMNS = "owner_id, lower_name, description, is_private, is_template, is_fork, is_mirror, is_archived"
const USER_COLUMNS = "visibility, lower_name, kind"

const changed = (columns: string) => {
  const list = columns.split(",").map((column) => column.trim())
  return `(${list.map((column) => `OLD.${column}`).join(", ")}) IS DISTINCT FROM (${list.map((column) => `NEW.${column}`).join(", ")})`
}

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE repository_search_epoch (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      epoch bigint NOT NULL
    )`
  yield* sql`INSERT INTO repository_search_epoch (epoch) VALUES (0)`
  yield* sql`CREATE FUNCTION repository_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('kiln.repository_search_changed', true) IS DISTINCT FROM 'on' THEN
        PERFORM set_config('kiln.repository_search_changed', 'on', true);
        UPDATE repository_search_epoch SET epoch = epoch + 1;
      END IF;
      RETURN NULL;
    END $$`
  yield* watch("repositories_search_added_removed", "repositories", "INSERT OR DELETE")
  yield* watch("repositories_search_changed", "repositories", `UPDATE OF ${REPOSITORY_COLUMNS}`, changed(REPOSITORY_COLUMNS))
  yield* watch("users_search_removed", "users", "DELETE")
  yield* watch("users_search_changed", "users", `UPDATE OF ${USER_COLUMNS}`, changed(USER_COLUMNS))
  for (const table of ["collaborations", "org_users", "teams", "team_users", "team_repos"]) {
    yield* watch(`${table}_search_changed`, table, "INSERT OR UPDATE OR DELETE")
  }
  yield* sql`CREATE INDEX users_lower_name_trgm ON users USING gin (lower_name gin_trgm_ops) WITH (fastupdate = off)`
})
