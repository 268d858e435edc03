/**
 * Where a renamed repository's old name leads (Forgejo's `repo_redirect`): one row per owner and
 * lower-cased old name. A rename writes it, a repository taking that name removes it, and deleting
 * the repository takes its redirects along (ON DELETE CASCADE, found through repository_redirects_repo).
 *
 * With it: the clone address a migrated repository came from (credentials never stored), the index
 * that lists a repository's forks and detaches them when it goes, and the index that counts a
 * repository's published releases for `release_counter` without reading the release rows.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE repository_redirects (
      owner_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      lower_name text NOT NULL,
      repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      PRIMARY KEY (owner_id, lower_name)
    )`
  yield* sql`CREATE INDEX repository_redirects_repo ON repository_redirects (repo_id)`
  yield* sql`ALTER TABLE repositories ADD COLUMN original_url text NOT NULL DEFAULT ''`
  yield* sql`CREATE INDEX repositories_fork ON repositories (fork_id, id)`
  yield* sql`CREATE INDEX releases_published ON releases (repo_id) WHERE NOT is_draft`
})
