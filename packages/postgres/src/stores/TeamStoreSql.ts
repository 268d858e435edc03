/**
 * TeamStore on Postgres. Organization membership (`org_users`) is kept in step with team
 * membership (`team_users`) inside the same transactions; inserts of memberships use
 * ON CONFLICT DO NOTHING, so concurrent joins of one user leave one row. Removals from the
 * Owners team lock the team row first, so two concurrent removals cannot both pass the
 * last-owner check.
 */
import { Array as Arr, Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { AlreadyExists, Conflict } from "@kiln/domain/errors"
import { type AccessMode, isAccessMode } from "@kiln/domain/org/AccessMode"
import { isOwnerTeam, lastOwnerMessage, type NewTeam, type Team, teamExistsMessage } from "@kiln/domain/org/Team"
import { TeamStore } from "@kiln/domain/org/TeamStore"
import { type UnitKey, unitKeyOf, unitModesOf, unitsIn, type UnitModes } from "@kiln/domain/org/Unit"
import { offsetOf } from "@kiln/domain/Paging"
import { int, totalOf } from "./Rows.ts"
import { toUser, userColumns, type UserRow } from "./UserStoreSql.ts"

export interface TeamRow {
  readonly id: unknown
  readonly org_id: unknown
  readonly name: string
  readonly lower_name: string
  readonly description: string
  readonly permission: string
  readonly includes_all_repositories: boolean
  readonly can_create_org_repo: boolean
  /** `unit=level` pairs, comma-joined. */
  readonly units: string
}

/** The columns of a Team for a query over `teams t`. */
export const TEAM_COLUMNS = `t.id, t.org_id, t.name, t.lower_name, t.description, t.permission,
  t.includes_all_repositories, t.can_create_org_repo,
  COALESCE((SELECT string_agg(tu.unit || '=' || tu.permission, ',') FROM team_units tu WHERE tu.team_id = t.id), '') AS units`

const accessModeOf = (text: string): AccessMode => isAccessMode(text) ? text : "none"

const unitsOf = (text: string): UnitModes => {
  const levels = new Map<UnitKey, AccessMode>()
  for (const pair of text === "" ? [] : text.split(",")) {
    const [key = "", level = ""] = pair.split("=")
    const unit = unitKeyOf(key)
    if (unit !== undefined) levels.set(unit, accessModeOf(level))
  }
  return unitModesOf((unit) => levels.get(unit))
}

export const toTeam = (row: TeamRow): Team => ({
  id: int(row.id),
  orgId: int(row.org_id),
  name: row.name,
  lowerName: row.lower_name,
  description: row.description,
  permission: accessModeOf(row.permission),
  includesAllRepositories: row.includes_all_repositories,
  canCreateOrgRepo: row.can_create_org_repo,
  units: unitsOf(row.units)
})

const teamConflict = (orgId: number, name: string) => (error: SqlError.SqlError) =>
  error.reason._tag === "UniqueViolation"
    ? Effect.fail(new AlreadyExists({ message: teamExistsMessage(orgId, name.toLowerCase()) }))
    : Effect.die(error)

const writeUnits = (sql: SqlClient.SqlClient, teamId: number, units: UnitModes) => {
  const rows = unitsIn(units).map((unit): Record<string, unknown> => ({ team_id: teamId, unit, permission: units[unit] ?? "none" }))
  return Arr.isReadonlyArrayNonEmpty(rows) ? Effect.asVoid(sql`INSERT INTO team_units ${sql.insert(rows)}`) : Effect.void
}

/** Inserts a team with its unit rows; run inside the caller's transaction when there is one. */
export const insertTeam = (sql: SqlClient.SqlClient, team: NewTeam): Effect.Effect<Team, AlreadyExists> =>
  sql.withTransaction(Effect.gen(function*() {
    const [row] = yield* sql<{ id: unknown }>`INSERT INTO teams ${
      sql.insert({
        org_id: team.orgId,
        name: team.name,
        lower_name: team.name.toLowerCase(),
        description: team.description,
        permission: team.permission,
        includes_all_repositories: team.includesAllRepositories,
        can_create_org_repo: team.canCreateOrgRepo
      })
    } RETURNING id`
    const id = int(row?.id)
    yield* writeUnits(sql, id, team.units)
    return { ...team, id, lowerName: team.name.toLowerCase() }
  })).pipe(Effect.catchTag("SqlError", teamConflict(team.orgId, team.name)))

export const layer = Layer.effect(
  TeamStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const teamColumns = sql.literal(TEAM_COLUMNS)
    const memberColumns = sql.literal(userColumns("u"))

    const findById = (id: number) =>
      sql<TeamRow>`SELECT ${teamColumns} FROM teams t WHERE t.id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toTeam)),
        Effect.orDie
      )

    const exists = (query: Effect.Effect<ReadonlyArray<{ found: boolean }>, SqlError.SqlError>) =>
      Effect.orDie(Effect.map(query, (rows) => rows[0]?.found === true))

    const isOrgOwner = (orgId: number, userId: number) =>
      exists(sql<{ found: boolean }>`SELECT EXISTS (
        SELECT 1 FROM team_users tu JOIN teams t ON t.id = tu.team_id
        WHERE t.org_id = ${orgId} AND t.lower_name = 'owners' AND tu.user_id = ${userId}) AS found`)

    /** Drops the organization membership of a user who is in none of its teams any more. */
    const dropMembershipWithoutTeams = (orgId: number, userId: number) =>
      sql`DELETE FROM org_users o WHERE o.org_id = ${orgId} AND o.user_id = ${userId}
        AND NOT EXISTS (SELECT 1 FROM team_users tu WHERE tu.org_id = o.org_id AND tu.user_id = o.user_id)`

    return TeamStore.of({
      insert: (team) => insertTeam(sql, team),
      update: (team, replaceUnits) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`UPDATE teams SET ${
            sql.update({
              name: team.name,
              lower_name: team.name.toLowerCase(),
              description: team.description,
              permission: team.permission,
              includes_all_repositories: team.includesAllRepositories,
              can_create_org_repo: team.canCreateOrgRepo
            })
          } WHERE id = ${team.id}`
          if (replaceUnits) {
            yield* sql`DELETE FROM team_units WHERE team_id = ${team.id}`
            yield* writeUnits(sql, team.id, team.units)
          }
          return { ...team, lowerName: team.name.toLowerCase() }
        })).pipe(Effect.catchTag("SqlError", teamConflict(team.orgId, team.name))),
      remove: (team) =>
        sql.withTransaction(Effect.gen(function*() {
          // The CTE's deletion is not visible to the outer statement, hence `team_id <> team`.
          yield* sql`WITH removed AS (DELETE FROM team_users WHERE team_id = ${team.id} RETURNING user_id)
            DELETE FROM org_users o WHERE o.org_id = ${team.orgId} AND o.user_id IN (SELECT user_id FROM removed)
              AND NOT EXISTS (SELECT 1 FROM team_users tu
                WHERE tu.org_id = o.org_id AND tu.user_id = o.user_id AND tu.team_id <> ${team.id})`
          yield* sql`DELETE FROM teams WHERE id = ${team.id}`
        })).pipe(Effect.orDie),
      findById,
      findOwnerTeam: (orgId) =>
        sql<TeamRow>`SELECT ${teamColumns} FROM teams t WHERE t.org_id = ${orgId} AND t.lower_name = 'owners'`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toTeam)),
          Effect.orDie
        ),
      listForOrg: (orgId, page) =>
        Effect.all([
          sql<TeamRow>`SELECT ${teamColumns} FROM teams t WHERE t.org_id = ${orgId}
            ORDER BY t.lower_name LIMIT ${page.limit} OFFSET ${offsetOf(page)}`,
          sql<{ total: unknown }>`SELECT count(*) AS total FROM teams WHERE org_id = ${orgId}`
        ]).pipe(Effect.map(([rows, counted]) => ({ items: rows.map(toTeam), total: totalOf(counted) })), Effect.orDie),
      listForMember: (orgId, userId) =>
        sql<TeamRow>`SELECT ${teamColumns} FROM teams t JOIN team_users m ON m.team_id = t.id
          WHERE t.org_id = ${orgId} AND m.user_id = ${userId} ORDER BY t.lower_name`.pipe(
          Effect.map((rows) => rows.map(toTeam)),
          Effect.orDie
        ),
      listCoveringRepository: (orgId, userId, repoId) =>
        sql<TeamRow>`SELECT ${teamColumns} FROM teams t JOIN team_users m ON m.team_id = t.id
          WHERE t.org_id = ${orgId} AND m.user_id = ${userId}
            AND (t.includes_all_repositories
              OR EXISTS (SELECT 1 FROM team_repos r WHERE r.team_id = t.id AND r.repo_id = ${repoId}))
          ORDER BY t.lower_name`.pipe(Effect.map((rows) => rows.map(toTeam)), Effect.orDie),
      isTeamMember: (teamId, userId) =>
        exists(sql<{ found: boolean }>`SELECT EXISTS (
          SELECT 1 FROM team_users WHERE team_id = ${teamId} AND user_id = ${userId}) AS found`),
      addMember: (team, userId, membershipPublic) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO org_users ${sql.insert({ org_id: team.orgId, user_id: userId, is_public: membershipPublic })}
            ON CONFLICT (org_id, user_id) DO NOTHING`
          yield* sql`INSERT INTO team_users ${sql.insert({ org_id: team.orgId, team_id: team.id, user_id: userId })}
            ON CONFLICT (team_id, user_id) DO NOTHING`
        })).pipe(Effect.orDie),
      removeMember: (team, userId) =>
        sql.withTransaction(Effect.gen(function*() {
          const [locked] = yield* sql<TeamRow>`SELECT ${teamColumns} FROM teams t WHERE t.id = ${team.id} FOR UPDATE`
          const [membership] = yield* sql<{ member: boolean; total: unknown }>`
            SELECT bool_or(user_id = ${userId}) AS member, count(*) AS total FROM team_users WHERE team_id = ${team.id}`
          if (membership?.member !== true) return
          if (locked !== undefined && isOwnerTeam(toTeam(locked)) && int(membership.total) <= 1) {
            return yield* new Conflict({ message: lastOwnerMessage(userId) })
          }
          yield* sql`DELETE FROM team_users WHERE team_id = ${team.id} AND user_id = ${userId}`
          yield* dropMembershipWithoutTeams(team.orgId, userId)
        })).pipe(Effect.catchTag("SqlError", Effect.die)),
      listMembers: (teamId, page) =>
        Effect.all([
          sql<UserRow>`SELECT ${memberColumns} FROM users u JOIN team_users m ON m.user_id = u.id
            WHERE m.team_id = ${teamId} ORDER BY u.full_name, u.name LIMIT ${page.limit} OFFSET ${offsetOf(page)}`,
          sql<{ total: unknown }>`SELECT count(*) AS total FROM team_users WHERE team_id = ${teamId}`
        ]).pipe(Effect.map(([rows, counted]) => ({ items: rows.map(toUser), total: totalOf(counted) })), Effect.orDie),
      isOrgMember: (orgId, userId) =>
        exists(sql<{ found: boolean }>`SELECT EXISTS (
          SELECT 1 FROM org_users WHERE org_id = ${orgId} AND user_id = ${userId}) AS found`),
      isOrgOwner,
      isPublicMember: (orgId, userId) =>
        exists(sql<{ found: boolean }>`SELECT EXISTS (
          SELECT 1 FROM org_users WHERE org_id = ${orgId} AND user_id = ${userId} AND is_public) AS found`),
      setMembershipPublic: (orgId, userId, isPublic) =>
        sql`UPDATE org_users SET is_public = ${isPublic} WHERE org_id = ${orgId} AND user_id = ${userId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      removeOrgMember: (orgId, userId) =>
        sql.withTransaction(Effect.gen(function*() {
          const owners = yield* sql<{ id: unknown }>`SELECT id FROM teams
            WHERE org_id = ${orgId} AND lower_name = 'owners' FOR UPDATE`
          const ownerTeamId = owners[0]?.id
          if (ownerTeamId !== undefined) {
            const [membership] = yield* sql<{ member: boolean; total: unknown }>`
              SELECT bool_or(user_id = ${userId}) AS member, count(*) AS total FROM team_users WHERE team_id = ${int(ownerTeamId)}`
            if (membership?.member === true && int(membership.total) <= 1) {
              return yield* new Conflict({ message: lastOwnerMessage(userId) })
            }
          }
          yield* sql`DELETE FROM team_users WHERE org_id = ${orgId} AND user_id = ${userId}`
          yield* sql`DELETE FROM org_users WHERE org_id = ${orgId} AND user_id = ${userId}`
        })).pipe(Effect.catchTag("SqlError", Effect.die)),
      listOrgMembers: (orgId, publicOnly, page) =>
        Effect.all([
          // Forgejo pages the membership rows, then orders the page's users by name.
          sql<UserRow>`SELECT ${memberColumns} FROM users u JOIN (
              SELECT user_id FROM org_users WHERE org_id = ${orgId} AND (${!publicOnly} OR is_public)
              ORDER BY id LIMIT ${page.limit} OFFSET ${offsetOf(page)}
            ) m ON m.user_id = u.id ORDER BY u.name`,
          sql<{ total: unknown }>`SELECT count(*) AS total FROM org_users
            WHERE org_id = ${orgId} AND (${!publicOnly} OR is_public)`
        ]).pipe(Effect.map(([rows, counted]) => ({ items: rows.map(toUser), total: totalOf(counted) })), Effect.orDie),
      addRepository: (team, repoId) =>
        sql`INSERT INTO team_repos ${sql.insert({ org_id: team.orgId, team_id: team.id, repo_id: repoId })}
          ON CONFLICT (team_id, repo_id) DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
      removeRepository: (teamId, repoId) =>
        sql`DELETE FROM team_repos WHERE team_id = ${teamId} AND repo_id = ${repoId}`.pipe(Effect.asVoid, Effect.orDie),
      listRepositoryIds: (teamId, page) =>
        Effect.all([
          sql<{ repo_id: unknown }>`SELECT repo_id FROM team_repos WHERE team_id = ${teamId}
            ORDER BY repo_id LIMIT ${page.limit} OFFSET ${offsetOf(page)}`,
          sql<{ total: unknown }>`SELECT count(*) AS total FROM team_repos WHERE team_id = ${teamId}`
        ]).pipe(
          Effect.map(([rows, counted]) => ({ items: rows.map((row) => int(row.repo_id)), total: totalOf(counted) })),
          Effect.orDie
        ),
      hasRepository: (teamId, repoId) =>
        exists(sql<{ found: boolean }>`SELECT EXISTS (
          SELECT 1 FROM team_repos WHERE team_id = ${teamId} AND repo_id = ${repoId}) AS found`)
    })
  })
)
