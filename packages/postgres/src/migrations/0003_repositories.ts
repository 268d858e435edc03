/**
 * Repositories and their collaborators. Names are unique per owner, case-insensitively. Search
 * runs on trigram (pg_trgm) indexes over the lower-cased name and description, so a keyword that
 * matches few repositories is found through the index instead of scanning in name order; the
 * (lower_name, id) index serves the default order when a keyword matches many.
 * Team listings (`team_repos`) keep no foreign key (see 0002): repository deletion removes them.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE repositories (
      id bigserial PRIMARY KEY,
      owner_id bigint NOT NULL REFERENCES users (id),
      name text NOT NULL,
      lower_name text NOT NULL,
      description text NOT NULL DEFAULT '',
      website text NOT NULL DEFAULT '',
      default_branch text NOT NULL,
      wiki_branch text NOT NULL,
      is_private boolean NOT NULL DEFAULT false,
      is_template boolean NOT NULL DEFAULT false,
      is_empty boolean NOT NULL DEFAULT true,
      is_archived boolean NOT NULL DEFAULT false,
      is_fork boolean NOT NULL DEFAULT false,
      fork_id bigint NOT NULL DEFAULT 0,
      is_mirror boolean NOT NULL DEFAULT false,
      size bigint NOT NULL DEFAULT 0,
      object_format text NOT NULL DEFAULT 'sha1' CHECK (object_format IN ('sha1', 'sha256')),
      trust_model text NOT NULL DEFAULT 'default',
      units jsonb NOT NULL,
      num_stars integer NOT NULL DEFAULT 0,
      num_forks integer NOT NULL DEFAULT 0,
      num_watches integer NOT NULL DEFAULT 0,
      num_open_issues integer NOT NULL DEFAULT 0,
      num_open_pulls integer NOT NULL DEFAULT 0,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      archived_at bigint NOT NULL DEFAULT 0,
      CONSTRAINT repositories_owner_lower_name UNIQUE (owner_id, lower_name)
    )`
  yield* sql`CREATE INDEX repositories_lower_name ON repositories (lower_name, id)`
  // No pending list (fastupdate): every search would scan it linearly; repositories are written rarely.
  yield* sql`CREATE INDEX repositories_lower_name_trgm ON repositories USING gin (lower_name gin_trgm_ops)
    WITH (fastupdate = off)`
  yield* sql`CREATE INDEX repositories_description_trgm ON repositories USING gin (lower(description) gin_trgm_ops)
    WITH (fastupdate = off)`
  yield* sql`
    CREATE TABLE collaborations (
      repo_id bigint NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      mode text NOT NULL CHECK (mode IN ('read', 'write', 'admin')),
      created_at bigint NOT NULL,
      PRIMARY KEY (repo_id, user_id)
    )`
  yield* sql`CREATE INDEX collaborations_user ON collaborations (user_id, repo_id)`
})
