/** Accounts (users and organizations share one name space), access tokens and SSH keys. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE users (
      id bigserial PRIMARY KEY,
      name text NOT NULL,
      lower_name text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('individual', 'organization')),
      full_name text NOT NULL DEFAULT '',
      email text NOT NULL DEFAULT '',
      keep_email_private boolean NOT NULL DEFAULT false,
      login_name text NOT NULL DEFAULT '',
      source_id bigint NOT NULL DEFAULT 0,
      is_admin boolean NOT NULL DEFAULT false,
      restricted boolean NOT NULL DEFAULT false,
      active boolean NOT NULL DEFAULT true,
      prohibit_login boolean NOT NULL DEFAULT false,
      must_change_password boolean NOT NULL DEFAULT false,
      visibility text NOT NULL CHECK (visibility IN ('public', 'limited', 'private')),
      location text NOT NULL DEFAULT '',
      pronouns text NOT NULL DEFAULT '',
      keep_pronouns_private boolean NOT NULL DEFAULT false,
      website text NOT NULL DEFAULT '',
      description text NOT NULL DEFAULT '',
      language text NOT NULL DEFAULT '',
      max_repo_creation integer NOT NULL DEFAULT -1,
      allow_create_organization boolean NOT NULL DEFAULT true,
      allow_git_hook boolean NOT NULL DEFAULT false,
      allow_import_local boolean NOT NULL DEFAULT false,
      repo_admin_change_team_access boolean NOT NULL DEFAULT false,
      password_hash text NOT NULL DEFAULT '',
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      last_login_at bigint NOT NULL DEFAULT 0
    )`
  yield* sql`CREATE UNIQUE INDEX users_lower_name ON users (lower_name)`
  yield* sql`CREATE UNIQUE INDEX users_individual_email ON users (lower(email)) WHERE kind = 'individual'`
  yield* sql`CREATE INDEX users_kind_lower_name ON users (kind, lower_name)`
  yield* sql`
    CREATE TABLE access_tokens (
      id bigserial PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      scopes text NOT NULL,
      last_eight text NOT NULL,
      salt text NOT NULL,
      hash text NOT NULL,
      created_at bigint NOT NULL,
      UNIQUE (user_id, name)
    )`
  yield* sql`CREATE INDEX access_tokens_last_eight ON access_tokens (last_eight)`
  yield* sql`
    CREATE TABLE public_keys (
      id bigserial PRIMARY KEY,
      owner_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      title text NOT NULL,
      content text NOT NULL,
      fingerprint text NOT NULL,
      read_only boolean NOT NULL DEFAULT false,
      created_at bigint NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX public_keys_content ON public_keys (content)`
  yield* sql`CREATE UNIQUE INDEX public_keys_owner_title ON public_keys (owner_id, title)`
  yield* sql`CREATE INDEX public_keys_fingerprint ON public_keys (fingerprint)`
})
