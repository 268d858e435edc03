/**
 * The branch table and commit statuses. Branches are listed by the latest head commit first, then by
 * name in byte order (git's), straight from the (repo_id, commit_time DESC, name) index; each row
 * carries what the Branch JSON shows of its head commit, verification included, so that listing
 * never reads git. Commit statuses are numbered per (repository, commit) and found by that pair; the
 * latest status of each context comes from the (repo_id, sha, context, index DESC) index.
 * Both go with their repository (ON DELETE CASCADE).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE branches (
      repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      name text COLLATE "C" NOT NULL,
      commit_id text NOT NULL,
      commit_message text NOT NULL,
      author_name text NOT NULL,
      author_email text NOT NULL,
      author_time bigint NOT NULL,
      author_offset integer NOT NULL,
      committer_name text NOT NULL,
      committer_email text NOT NULL,
      commit_time bigint NOT NULL,
      committer_offset integer NOT NULL,
      verification jsonb NOT NULL,
      PRIMARY KEY (repo_id, name)
    )`
  yield* sql`CREATE INDEX branches_listing ON branches (repo_id, commit_time DESC, name)`
  yield* sql`
    CREATE TABLE commit_statuses (
      id bigserial PRIMARY KEY,
      repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      sha text NOT NULL,
      index bigint NOT NULL,
      state text NOT NULL,
      target_url text NOT NULL,
      description text NOT NULL,
      context text NOT NULL,
      creator_id bigint NOT NULL,
      created_at bigint NOT NULL,
      CONSTRAINT commit_statuses_number UNIQUE (repo_id, sha, index)
    )`
  yield* sql`CREATE INDEX commit_statuses_context ON commit_statuses (repo_id, sha, context, index DESC)`
})
