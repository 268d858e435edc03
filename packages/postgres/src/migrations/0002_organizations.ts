/**
 * Organizations' teams, team and organization membership, team unit rows, repositories listed for
 * teams, and webhooks. Organizations themselves are rows of `users` (kind 'organization').
 * Membership of an organization is `org_users` (with its public flag), kept in step with `team_users`.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE teams (
      id bigserial PRIMARY KEY,
      org_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      lower_name text NOT NULL,
      description text NOT NULL DEFAULT '',
      permission text NOT NULL CHECK (permission IN ('none', 'read', 'write', 'admin', 'owner')),
      includes_all_repositories boolean NOT NULL DEFAULT false,
      can_create_org_repo boolean NOT NULL DEFAULT false,
      CONSTRAINT teams_org_lower_name UNIQUE (org_id, lower_name)
    )`
  yield* sql`
    CREATE TABLE team_units (
      team_id bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
      unit text NOT NULL,
      permission text NOT NULL CHECK (permission IN ('none', 'read', 'write', 'admin', 'owner')),
      PRIMARY KEY (team_id, unit)
    )`
  yield* sql`
    CREATE TABLE org_users (
      id bigserial PRIMARY KEY,
      org_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      is_public boolean NOT NULL DEFAULT false,
      CONSTRAINT org_users_org_user UNIQUE (org_id, user_id)
    )`
  yield* sql`CREATE INDEX org_users_user ON org_users (user_id)`
  yield* sql`
    CREATE TABLE team_users (
      id bigserial PRIMARY KEY,
      org_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      team_id bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      CONSTRAINT team_users_team_user UNIQUE (team_id, user_id)
    )`
  yield* sql`CREATE INDEX team_users_org_user ON team_users (org_id, user_id)`
  // repo_id gets its foreign key with the repositories' table.
  yield* sql`
    CREATE TABLE team_repos (
      org_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      team_id bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
      repo_id bigint NOT NULL,
      PRIMARY KEY (team_id, repo_id)
    )`
  yield* sql`CREATE INDEX team_repos_repo ON team_repos (repo_id)`
  yield* sql`
    CREATE TABLE webhooks (
      id bigserial PRIMARY KEY,
      owner_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      type text NOT NULL,
      url text NOT NULL,
      content_type text NOT NULL CHECK (content_type IN ('json', 'form')),
      secret text NOT NULL DEFAULT '',
      events text NOT NULL DEFAULT '',
      branch_filter text NOT NULL DEFAULT '',
      authorization_header text NOT NULL DEFAULT '',
      active boolean NOT NULL DEFAULT false,
      is_system_webhook boolean NOT NULL DEFAULT false,
      slack_channel text,
      slack_username text NOT NULL DEFAULT '',
      slack_icon_url text NOT NULL DEFAULT '',
      slack_color text NOT NULL DEFAULT '',
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    )`
  yield* sql`CREATE INDEX webhooks_owner ON webhooks (owner_id, id)`
})
