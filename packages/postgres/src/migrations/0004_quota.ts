/**
 * Quota settings: rules, groups, the rules of each group and the owners assigned to groups.
 * Names are the keys (Forgejo addresses rules and groups by name only) and sort by code unit
 * (`COLLATE "C"`), as the QuotaStore port orders them. Usage is not stored here: it is summed from
 * the tables that record repositories and assets, when asked, through covering indexes.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE quota_rules (
      name text COLLATE "C" PRIMARY KEY CHECK (name <> ''),
      "limit" bigint NOT NULL,
      subjects text[] NOT NULL DEFAULT '{}'
    )`
  yield* sql`
    CREATE TABLE quota_groups (
      name text COLLATE "C" PRIMARY KEY CHECK (name <> '')
    )`
  yield* sql`
    CREATE TABLE quota_group_rules (
      group_name text COLLATE "C" NOT NULL REFERENCES quota_groups (name) ON DELETE CASCADE,
      rule_name text COLLATE "C" NOT NULL REFERENCES quota_rules (name) ON DELETE CASCADE,
      PRIMARY KEY (group_name, rule_name)
    )`
  yield* sql`CREATE INDEX quota_group_rules_rule ON quota_group_rules (rule_name)`
  // Owners are users or organizations; deleting the account drops its assignments.
  yield* sql`
    CREATE TABLE quota_group_users (
      group_name text COLLATE "C" NOT NULL REFERENCES quota_groups (name) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      PRIMARY KEY (group_name, user_id)
    )`
  yield* sql`CREATE INDEX quota_group_users_user ON quota_group_users (user_id, group_name)`
  // An owner's repository usage is summed from this index alone (an index-only scan).
  yield* sql`CREATE INDEX repositories_owner_usage ON repositories (owner_id) INCLUDE (is_private, size)`
})
