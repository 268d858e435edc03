/**
 * QuotaStore on Postgres (migration 0004_quota). Every write is one transaction. Concurrent writes
 * of the same name or assignment meet on a primary key: inserts use ON CONFLICT DO NOTHING and
 * report the domain error when nothing was inserted, so of two concurrent requests one wins and the
 * other gets AlreadyExists, never a database error. Rows a write depends on (the group, the rule)
 * are locked FOR KEY SHARE first, so a concurrent delete waits instead of breaking a foreign key.
 */
import { Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import type { AlreadyExists, Invalid, NotFound } from "@kiln/domain/errors"
import {
  groupAlreadyExists,
  groupNotFound,
  groupNotFoundInList,
  ruleAlreadyExists,
  ruleAlreadyInGroup,
  ruleNotFound,
  ruleNotInGroup,
  userAlreadyInGroup,
  userNotInGroup
} from "@kiln/domain/quota/QuotaErrors"
import type { QuotaGroup } from "@kiln/domain/quota/QuotaGroup"
import { QuotaRule } from "@kiln/domain/quota/QuotaRule"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import { emptyUsage } from "@kiln/domain/quota/Usage"
import { offsetOf } from "@kiln/domain/Paging"
import { int, totalOf } from "./Rows.ts"

interface RuleRow {
  readonly name: string
  readonly limit: unknown
  readonly subjects: ReadonlyArray<string>
}

/** A group joined with its rules: one row per rule, or one row of nulls for a group without rules. */
interface GroupRuleRow {
  readonly group_name: string
  readonly name: string | null
  readonly limit: unknown
  readonly subjects: ReadonlyArray<string> | null
}

const decodeRule = Schema.decodeUnknownEffect(QuotaRule)

/** Rows hold only what the domain validated before writing; anything else is a broken database. */
const toRule = (row: RuleRow): Effect.Effect<QuotaRule> =>
  Effect.orDie(decodeRule({ name: row.name, limit: int(row.limit), subjects: row.subjects }))

/** Groups in row order (by name), each with its rules in row order (by name). */
const toGroups = (rows: ReadonlyArray<GroupRuleRow>): Effect.Effect<ReadonlyArray<QuotaGroup>> =>
  Effect.gen(function*() {
    const groups: Array<{ name: string; rules: Array<QuotaRule> }> = []
    for (const row of rows) {
      let group = groups.at(-1)
      if (group === undefined || group.name !== row.group_name) {
        group = { name: row.group_name, rules: [] }
        groups.push(group)
      }
      if (row.name !== null) {
        group.rules.push(yield* toRule({ name: row.name, limit: row.limit, subjects: row.subjects ?? [] }))
      }
    }
    return groups
  })

/**
 * Domain failures pass; database failures are defects (the port promises only domain errors).
 * The cast states what catchTag did: TypeScript cannot reduce `Exclude` over a generic error type.
 */
const orDieOnSql = <A, E>(effect: Effect.Effect<A, E | SqlError.SqlError>): Effect.Effect<A, Exclude<E, SqlError.SqlError>> =>
  effect.pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, Exclude<E, SqlError.SqlError>>

interface AttachmentUsageRow {
  readonly id: unknown
  readonly name: string
  readonly size: unknown
  readonly owner_name: string
  readonly repo_name: string
  readonly release_id: unknown
  readonly tag_name: string
}

interface PackageUsageRow {
  readonly id: unknown
  readonly owner_name: string
  readonly type: string
  readonly name: string
  readonly version: string
  readonly size: unknown
  readonly total: unknown
}

export const layer = Layer.effect(
  QuotaStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The packages `p` counted for the owner: linked to one of its repositories, or linked to none and its own. */
    const ownedPackages = (ownerId: number) =>
      sql`(SELECT id, owner_id, type, name FROM packages WHERE (repo_id IS NULL AND owner_id = ${ownerId})
        OR repo_id IN (SELECT id FROM repositories WHERE owner_id = ${ownerId})) p`

    const groupsWhere = (filter: Statement.Fragment) =>
      sql<GroupRuleRow>`SELECT g.name AS group_name, r.name, r."limit", r.subjects
        FROM quota_groups g
        LEFT JOIN quota_group_rules gr ON gr.group_name = g.name
        LEFT JOIN quota_rules r ON r.name = gr.rule_name
        WHERE ${filter}
        ORDER BY g.name, r.name`.pipe(Effect.flatMap(toGroups))

    const findGroup = (name: string) =>
      Effect.flatMap(groupsWhere(sql`g.name = ${name}`), (groups) => {
        const group = groups[0]
        return group === undefined ? Effect.fail(groupNotFound(name)) : Effect.succeed(group)
      })

    const findRule = (name: string) =>
      Effect.flatMap(
        sql<RuleRow>`SELECT name, "limit", subjects FROM quota_rules WHERE name = ${name}`,
        (rows) => rows[0] === undefined ? Effect.fail(ruleNotFound(name)) : toRule(rows[0])
      )

    /** Locks the group against deletion until the transaction ends; NotFound when there is none. */
    const lockGroup = (name: string): Effect.Effect<void, NotFound | SqlError.SqlError> =>
      Effect.flatMap(
        sql`SELECT 1 FROM quota_groups WHERE name = ${name} FOR KEY SHARE`,
        (rows) => rows.length === 0 ? Effect.fail(groupNotFound(name)) : Effect.void
      )

    const lockRule = (name: string): Effect.Effect<void, NotFound | SqlError.SqlError> =>
      Effect.flatMap(
        sql`SELECT 1 FROM quota_rules WHERE name = ${name} FOR KEY SHARE`,
        (rows) => rows.length === 0 ? Effect.fail(ruleNotFound(name)) : Effect.void
      )

    const createGroup = (group: QuotaGroup): Effect.Effect<QuotaGroup, AlreadyExists | SqlError.SqlError> =>
      sql.withTransaction(Effect.gen(function*() {
        const inserted = yield* sql`INSERT INTO quota_groups (name) VALUES (${group.name})
          ON CONFLICT (name) DO NOTHING RETURNING name`
        if (inserted.length === 0) return yield* groupAlreadyExists(group.name)
        const seen = new Set<string>()
        for (const rule of group.rules) {
          if (seen.has(rule.name)) return yield* ruleAlreadyInGroup(group.name, rule.name)
          seen.add(rule.name)
          // An existing rule is reused unchanged; the lock keeps it alive until the group holds it.
          yield* sql`INSERT INTO quota_rules (name, "limit", subjects)
            VALUES (${rule.name}, ${rule.limit}, ${rule.subjects})
            ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name WHERE false`
          yield* sql`INSERT INTO quota_group_rules (group_name, rule_name) VALUES (${group.name}, ${rule.name})`
        }
        return yield* findGroup(group.name)
      })).pipe(Effect.catchTag("NotFound", Effect.die))

    return QuotaStore.of({
      listRules: sql<RuleRow>`SELECT name, "limit", subjects FROM quota_rules ORDER BY name`.pipe(
        Effect.flatMap((rows) => Effect.forEach(rows, toRule)),
        Effect.orDie
      ),

      getRule: (name) => orDieOnSql(findRule(name)),

      createRule: (rule) =>
        orDieOnSql(Effect.flatMap(
          sql<RuleRow>`INSERT INTO quota_rules (name, "limit", subjects) VALUES (${rule.name}, ${rule.limit}, ${rule.subjects})
            ON CONFLICT (name) DO NOTHING RETURNING name, "limit", subjects`,
          (rows) => rows[0] === undefined ? Effect.fail(ruleAlreadyExists(rule.name)) : toRule(rows[0])
        )),

      editRule: (name, edit) =>
        orDieOnSql(Effect.flatMap(
          sql<RuleRow>`UPDATE quota_rules SET
              "limit" = COALESCE(${edit.limit ?? null}::bigint, "limit"),
              subjects = COALESCE(${edit.subjects ?? null}::text[], subjects)
            WHERE name = ${name} RETURNING name, "limit", subjects`,
          (rows) => rows[0] === undefined ? Effect.fail(ruleNotFound(name)) : toRule(rows[0])
        )),

      deleteRule: (name) =>
        orDieOnSql(Effect.flatMap(
          sql`DELETE FROM quota_rules WHERE name = ${name} RETURNING name`,
          (rows) => rows.length === 0 ? Effect.fail(ruleNotFound(name)) : Effect.void
        )),

      listGroups: Effect.orDie(groupsWhere(sql`true`)),

      getGroup: (name) => orDieOnSql(findGroup(name)),

      createGroup: (group) => orDieOnSql(createGroup(group)),

      deleteGroup: (name) =>
        orDieOnSql(Effect.flatMap(
          sql`DELETE FROM quota_groups WHERE name = ${name} RETURNING name`,
          (rows) => rows.length === 0 ? Effect.fail(groupNotFound(name)) : Effect.void
        )),

      addRuleToGroup: (group, rule) =>
        orDieOnSql(sql.withTransaction(Effect.gen(function*() {
          yield* lockGroup(group)
          yield* lockRule(rule)
          const inserted = yield* sql`INSERT INTO quota_group_rules (group_name, rule_name) VALUES (${group}, ${rule})
            ON CONFLICT DO NOTHING RETURNING rule_name`
          if (inserted.length === 0) return yield* ruleAlreadyInGroup(group, rule)
        }))),

      removeRuleFromGroup: (group, rule) =>
        orDieOnSql(sql.withTransaction(Effect.gen(function*() {
          yield* lockGroup(group)
          yield* lockRule(rule)
          const deleted = yield* sql`DELETE FROM quota_group_rules WHERE group_name = ${group} AND rule_name = ${rule}
            RETURNING rule_name`
          if (deleted.length === 0) return yield* ruleNotInGroup(group, rule)
        }))),

      listUsersInGroup: (group) =>
        orDieOnSql(sql.withTransaction(Effect.gen(function*() {
          yield* lockGroup(group)
          const rows = yield* sql<{ user_id: unknown }>`SELECT user_id FROM quota_group_users
            WHERE group_name = ${group} ORDER BY user_id`
          return rows.map((row) => int(row.user_id))
        }))),

      addUserToGroup: (group, userId) =>
        orDieOnSql(sql.withTransaction(Effect.gen(function*() {
          yield* lockGroup(group)
          const inserted = yield* sql`INSERT INTO quota_group_users (group_name, user_id) VALUES (${group}, ${userId})
            ON CONFLICT DO NOTHING RETURNING user_id`
          if (inserted.length === 0) return yield* userAlreadyInGroup(group, userId)
        }))),

      removeUserFromGroup: (group, userId) =>
        orDieOnSql(sql.withTransaction(Effect.gen(function*() {
          yield* lockGroup(group)
          const deleted = yield* sql`DELETE FROM quota_group_users WHERE group_name = ${group} AND user_id = ${userId}
            RETURNING user_id`
          if (deleted.length === 0) return yield* userNotInGroup(group, userId)
        }))),

      setUserGroups: (userId, names) =>
        orDieOnSql(sql.withTransaction(Effect.gen(function*(): Effect.fn.Return<void, Invalid | SqlError.SqlError> {
          const wanted = [...new Set(names)]
          // Two replacements for one owner run one after the other, so the last one wins whole.
          yield* sql`SELECT 1 FROM users WHERE id = ${userId} FOR NO KEY UPDATE`
          const found = yield* sql<{ name: string }>`SELECT name FROM quota_groups WHERE name = ANY(${wanted}::text[])
            FOR KEY SHARE`
          const existing = new Set(found.map((row) => row.name))
          const unknown = wanted.find((name) => !existing.has(name))
          if (unknown !== undefined) return yield* groupNotFoundInList(unknown)
          yield* sql`DELETE FROM quota_group_users WHERE user_id = ${userId}`
          if (wanted.length > 0) {
            yield* sql`INSERT INTO quota_group_users (group_name, user_id)
              SELECT name, ${userId} FROM unnest(${wanted}::text[]) AS name`
          }
        }))),

      groupsOf: (ownerId) =>
        Effect.orDie(groupsWhere(sql`g.name IN (SELECT group_name FROM quota_group_users WHERE user_id = ${ownerId})`)),

      // The totals kept on write (migrations 0007 and 0018): one row per repository of the owner,
      // plus the owner's unlinked packages. Artifacts have no table yet; their leaf stays 0 until
      // the issue that records them adds its total here. LFS counts once per referencing
      // repository, as Forgejo's lfs_size does.
      usageOf: (ownerId) =>
        sql<{ repos_public: unknown; repos_private: unknown; git_lfs: unknown; attachments_releases: unknown; packages: unknown }>`SELECT
            COALESCE(sum(size) FILTER (WHERE NOT is_private), 0) AS repos_public,
            COALESCE(sum(size) FILTER (WHERE is_private), 0) AS repos_private,
            COALESCE(sum(lfs_size), 0) AS git_lfs,
            COALESCE(sum(attachments_size), 0) AS attachments_releases,
            COALESCE(sum(packages_size), 0)
              + COALESCE((SELECT size FROM unlinked_package_usage WHERE owner_id = ${ownerId}), 0) AS packages
          FROM repositories WHERE owner_id = ${ownerId}`.pipe(
          Effect.map(([row]) => ({
            ...emptyUsage,
            reposPublic: int(row?.repos_public ?? 0),
            reposPrivate: int(row?.repos_private ?? 0),
            gitLfs: int(row?.git_lfs ?? 0),
            attachmentsReleases: int(row?.attachments_releases ?? 0),
            packages: int(row?.packages ?? 0)
          })),
          Effect.orDie
        ),

      // Kiln has attachments on releases only (no issues yet). The page is read in order from
      // attachments_owner_size; the total is the sum of the counts kept per repository (0007).
      listAttachments: (ownerId, page) =>
        Effect.gen(function*() {
          const rows = yield* sql<AttachmentUsageRow>`SELECT a.id, a.name, a.size, o.name AS owner_name,
              r.name AS repo_name, rel.id AS release_id, rel.tag_name
            FROM attachments a
            JOIN repositories r ON r.id = a.repo_id
            JOIN users o ON o.id = r.owner_id
            JOIN releases rel ON rel.id = a.release_id
            WHERE a.owner_id = ${ownerId}
            ORDER BY a.size DESC, a.id LIMIT ${page.limit} OFFSET ${offsetOf(page)}`
          const total = totalOf(yield* sql<{ total: unknown }>`SELECT COALESCE(sum(attachments_count), 0) AS total
            FROM repositories WHERE owner_id = ${ownerId}`)
          const items = rows.map((row) => ({
            id: int(row.id),
            name: row.name,
            size: int(row.size),
            repository: { owner: row.owner_name, name: row.repo_name },
            container: { _tag: "Release" as const, releaseId: int(row.release_id), tagName: row.tag_name }
          }))
          return { items, total }
        }).pipe(Effect.orDie),

      // Versions with the sizes kept on write (0007), so no file row is read.
      listPackages: (ownerId, page) =>
        Effect.gen(function*() {
          const rows = yield* sql<PackageUsageRow>`SELECT v.id, o.name AS owner_name, p.type, p.name, v.version,
              v.size, count(*) OVER () AS total
            FROM ${ownedPackages(ownerId)}
            JOIN users o ON o.id = p.owner_id
            JOIN package_versions v ON v.package_id = p.id
            ORDER BY v.size DESC, v.id LIMIT ${page.limit} OFFSET ${offsetOf(page)}`
          const total = rows.length > 0 ? totalOf(rows) : totalOf(yield* sql<{ total: unknown }>`SELECT count(*) AS total
            FROM ${ownedPackages(ownerId)} JOIN package_versions v ON v.package_id = p.id`)
          const items = rows.map((row) => ({
            id: int(row.id),
            owner: row.owner_name,
            type: row.type,
            name: row.name,
            version: row.version,
            size: int(row.size)
          }))
          return { items, total }
        }).pipe(Effect.orDie),

      listArtifacts: () => Effect.succeed({ items: [], total: 0 })
    })
  })
)
