/**
 * RepositoryStore on Postgres: repositories joined with their owners, collaborations, and the
 * facts behind a user's access. Search builds Forgejo's `SearchRepositoryCondition` as SQL.
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { AlreadyExists } from "@kiln/domain/errors"
import { type AccessMode, isAccessMode } from "@kiln/domain/org/AccessMode"
import type { Team } from "@kiln/domain/org/Team"
import { type UnitKey, unitKeyOf } from "@kiln/domain/org/Unit"
import { offsetOf, type PageRequest } from "@kiln/domain/Paging"
import {
  defaultUnits,
  mergeStyles,
  type NewRepository,
  type OwnedRepository,
  type Repository,
  type RepositoryChanges,
  type RepositoryUnits,
  trustModelOf,
  updateStyles
} from "@kiln/domain/repo/Repository"
import type { RepositorySearch, SearchOrder, SearchVisibility } from "@kiln/domain/repo/RepositorySearch"
import { type AccessFacts, RepositoryStore } from "@kiln/domain/repo/RepositoryStore"
import { int, totalOf } from "./Rows.ts"
import { TEAM_COLUMNS, type TeamRow, toTeam } from "./TeamStoreSql.ts"
import { toUser, USER_COLUMNS, type UserRow } from "./UserStoreSql.ts"

interface RepositoryRow {
  readonly id: unknown
  readonly owner_id: unknown
  readonly name: string
  readonly lower_name: string
  readonly description: string
  readonly website: string
  readonly default_branch: string
  readonly wiki_branch: string
  readonly is_private: boolean
  readonly is_template: boolean
  readonly is_empty: boolean
  readonly is_archived: boolean
  readonly is_fork: boolean
  readonly fork_id: unknown
  readonly is_mirror: boolean
  readonly size: unknown
  readonly object_format: string
  readonly trust_model: string
  readonly units: unknown
  readonly num_stars: unknown
  readonly num_forks: unknown
  readonly num_watches: unknown
  readonly num_open_issues: unknown
  readonly num_open_pulls: unknown
  readonly created_at: unknown
  readonly updated_at: unknown
  readonly archived_at: unknown
}

const REPOSITORY_COLUMNS = [
  "id", "owner_id", "name", "lower_name", "description", "website", "default_branch", "wiki_branch", "is_private",
  "is_template", "is_empty", "is_archived", "is_fork", "fork_id", "is_mirror", "size", "object_format", "trust_model",
  "units", "num_stars", "num_forks", "num_watches", "num_open_issues", "num_open_pulls", "created_at", "updated_at",
  "archived_at"
] as const

const ownerColumnNames = USER_COLUMNS.split(",").map((column) => column.trim())

/** A repository `r` with its owner `o`, the owner's columns prefixed `o_`. */
export const OWNED_COLUMNS = [
  ...REPOSITORY_COLUMNS.map((column) => `r.${column}`),
  ...ownerColumnNames.map((column) => `o.${column} AS o_${column}`)
].join(", ")

const RETURNING_COLUMNS = REPOSITORY_COLUMNS.join(", ")

type Json = Readonly<Record<string, unknown>>

const isJsonObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** jsonb arrives parsed from the server and as text through some clients. */
const jsonOf = (value: unknown): Json => {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value
  return isJsonObject(parsed) ? parsed : {}
}

const flag = (json: Json, key: string, fallback: boolean): boolean => typeof json[key] === "boolean" ? json[key] : fallback

const oneOf = <const A extends string>(values: ReadonlyArray<A>, value: unknown, fallback: A): A =>
  values.find((candidate) => candidate === value) ?? fallback

const unitsOf = (value: unknown): RepositoryUnits => {
  const json = jsonOf(value)
  const enabled = Array.isArray(json["enabled"])
    ? json["enabled"].flatMap((key): ReadonlyArray<UnitKey> => {
      const unit = typeof key === "string" ? unitKeyOf(key) : undefined
      return unit === undefined ? [] : [unit]
    })
    : defaultUnits.enabled
  const issues = isJsonObject(json["issues"]) ? json["issues"] : {}
  const pulls = isJsonObject(json["pulls"]) ? json["pulls"] : {}
  const p = defaultUnits.pulls
  const i = defaultUnits.issues
  return {
    enabled,
    issues: {
      enableTimeTracker: flag(issues, "enableTimeTracker", i.enableTimeTracker),
      allowOnlyContributorsToTrackTime: flag(issues, "allowOnlyContributorsToTrackTime", i.allowOnlyContributorsToTrackTime),
      enableDependencies: flag(issues, "enableDependencies", i.enableDependencies)
    },
    pulls: {
      ignoreWhitespaceConflicts: flag(pulls, "ignoreWhitespaceConflicts", p.ignoreWhitespaceConflicts),
      allowMerge: flag(pulls, "allowMerge", p.allowMerge),
      allowRebase: flag(pulls, "allowRebase", p.allowRebase),
      allowRebaseMerge: flag(pulls, "allowRebaseMerge", p.allowRebaseMerge),
      allowSquash: flag(pulls, "allowSquash", p.allowSquash),
      allowFastForwardOnly: flag(pulls, "allowFastForwardOnly", p.allowFastForwardOnly),
      allowManualMerge: flag(pulls, "allowManualMerge", p.allowManualMerge),
      autodetectManualMerge: flag(pulls, "autodetectManualMerge", p.autodetectManualMerge),
      allowRebaseUpdate: flag(pulls, "allowRebaseUpdate", p.allowRebaseUpdate),
      defaultDeleteBranchAfterMerge: flag(pulls, "defaultDeleteBranchAfterMerge", p.defaultDeleteBranchAfterMerge),
      defaultMergeStyle: oneOf(mergeStyles, pulls["defaultMergeStyle"], p.defaultMergeStyle),
      defaultUpdateStyle: oneOf(updateStyles, pulls["defaultUpdateStyle"], p.defaultUpdateStyle),
      defaultAllowMaintainerEdit: flag(pulls, "defaultAllowMaintainerEdit", p.defaultAllowMaintainerEdit)
    },
    wikiGloballyEditable: flag(json, "wikiGloballyEditable", false)
  }
}

export const toRepository = (row: RepositoryRow): Repository => ({
  id: int(row.id),
  ownerId: int(row.owner_id),
  name: row.name,
  lowerName: row.lower_name,
  description: row.description,
  website: row.website,
  defaultBranch: row.default_branch,
  wikiBranch: row.wiki_branch,
  isPrivate: row.is_private,
  isTemplate: row.is_template,
  isEmpty: row.is_empty,
  isArchived: row.is_archived,
  isFork: row.is_fork,
  forkId: int(row.fork_id),
  isMirror: row.is_mirror,
  size: int(row.size),
  objectFormat: row.object_format === "sha256" ? "sha256" : "sha1",
  trustModel: trustModelOf(row.trust_model),
  units: unitsOf(row.units),
  numStars: int(row.num_stars),
  numForks: int(row.num_forks),
  numWatches: int(row.num_watches),
  numOpenIssues: int(row.num_open_issues),
  numOpenPulls: int(row.num_open_pulls),
  createdAt: int(row.created_at),
  updatedAt: int(row.updated_at),
  archivedAt: int(row.archived_at)
})

type OwnedRow = RepositoryRow & Readonly<Record<string, unknown>>

const ownerOf = (row: OwnedRow): UserRow => {
  const owner: Record<string, unknown> = {}
  for (const column of ownerColumnNames) owner[column] = row[`o_${column}`]
  // The row's owner columns are exactly a UserRow's, read back under their own names.
  return owner as unknown as UserRow
}

export const toOwned = (row: OwnedRow): OwnedRepository => ({ repository: toRepository(row), owner: toUser(ownerOf(row)) })

const unitsJson = (units: RepositoryUnits): string => JSON.stringify(units)

const CHANGE_COLUMNS: { readonly [K in keyof RepositoryChanges]-?: string } = {
  name: "name",
  description: "description",
  website: "website",
  defaultBranch: "default_branch",
  isPrivate: "is_private",
  isTemplate: "is_template",
  isEmpty: "is_empty",
  isArchived: "is_archived",
  size: "size",
  units: "units",
  updatedAt: "updated_at",
  archivedAt: "archived_at"
}

const isChangeKey = (key: string): key is keyof RepositoryChanges => key in CHANGE_COLUMNS

const ORDER_COLUMN: Record<SearchOrder["sort"], string> = {
  alpha: "o.lower_name",
  created: "r.created_at",
  updated: "r.updated_at",
  size: "r.size",
  git_size: "r.size",
  lfs_size: "r.id",
  stars: "r.num_stars",
  forks: "r.num_forks",
  id: "r.id"
}

export const layer = Layer.effect(
  RepositoryStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const owned = sql.literal(OWNED_COLUMNS)
    const returning = sql.literal(RETURNING_COLUMNS)
    const fromOwned = sql.literal("repositories r JOIN users o ON o.id = r.owner_id")

    const sameName = (error: SqlError.SqlError) =>
      error.reason._tag === "UniqueViolation"
        ? Effect.fail(new AlreadyExists({ message: "repository already exists" }))
        : Effect.die(error)

    const one = (rows: ReadonlyArray<OwnedRow>) => {
      const row = rows[0]
      return row === undefined ? Option.none() : Option.some(toOwned(row))
    }

    /** Repositories `userId` reaches by collaboration or team (Forgejo's `access` table). */
    const reachedBy = (userId: number) =>
      sql`(r.id IN (SELECT c.repo_id FROM collaborations c WHERE c.user_id = ${userId})
        OR r.id IN (SELECT tr.repo_id FROM team_repos tr JOIN team_users tu ON tu.team_id = tr.team_id WHERE tu.user_id = ${userId})
        OR r.owner_id IN (SELECT t.org_id FROM teams t JOIN team_users tu ON tu.team_id = t.id
          WHERE tu.user_id = ${userId} AND t.includes_all_repositories))`

    const visible = (filter: SearchVisibility): Statement.Fragment => {
      if (filter.kind === "public") {
        return sql`(NOT r.is_private AND r.owner_id NOT IN (SELECT u.id FROM users u WHERE u.visibility <> 'public'))`
      }
      const { userId, restricted } = filter
      const clauses: Array<Statement.Fragment> = [reachedBy(userId), sql`r.owner_id = ${userId}`]
      if (!restricted) {
        clauses.push(
          sql`(NOT r.is_private AND r.owner_id NOT IN (SELECT u.id FROM users u WHERE u.visibility = 'private'))`,
          sql`(NOT r.is_private AND r.owner_id IN (SELECT m.org_id FROM org_users m WHERE m.user_id = ${userId}))`
        )
      }
      return sql.or(clauses)
    }

    const ownerCondition = (query: RepositorySearch): Statement.Fragment => {
      const uid = query.ownerId
      const ownedBy = sql`r.owner_id = ${uid}`
      const collaborative: Array<Statement.Fragment> = [
        sql`r.owner_id <> ${uid}`,
        sql.or([
          reachedBy(uid),
          sql`(NOT r.is_private AND r.owner_id IN (SELECT m.org_id FROM org_users m JOIN users u ON u.id = m.org_id
            WHERE m.user_id = ${uid} AND u.kind = 'organization' AND u.visibility = 'private'))`
        ])
      ]
      if (!query.includePrivateMemberships) {
        collaborative.push(sql`r.owner_id NOT IN (SELECT m.org_id FROM org_users m WHERE m.user_id = ${uid} AND NOT m.is_public)`)
      }
      const collaborate = sql.and(collaborative)
      return Option.match(query.collaborate, {
        onNone: () => sql.or([ownedBy, collaborate]),
        onSome: (only) => only ? collaborate : ownedBy
      })
    }

    /**
     * A LIKE pattern written into the statement text. As a parameter it would let Postgres switch
     * the prepared statement to a generic plan that cannot know the pattern is rare and walks the
     * whole name index (or table) instead of the trigram index. Quotes are doubled
     * (standard_conforming_strings is on); NUL cannot be in a text value.
     */
    const like = (column: string, pattern: string) =>
      sql.literal(`${column} LIKE '${pattern.replaceAll("\u0000", "").replaceAll("'", "''")}'`)

    const keywordCondition = (query: RepositorySearch): Statement.Fragment => {
      // No topics are stored: a topic-only search matches nothing.
      if (query.topicOnly) return sql`FALSE`
      const likes: Array<Statement.Fragment> = []
      const slashed = query.keyword.split("/")
      for (const piece of query.keyword.split(",")) {
        const pattern = `%${piece.toLowerCase()}%`
        likes.push(like("r.lower_name", pattern))
        if (slashed.length === 2) {
          likes.push(sql`(r.owner_id IN (SELECT u.id FROM users u WHERE ${like("u.lower_name", `%${(slashed[0] ?? "").toLowerCase()}%`)})
            AND ${like("r.lower_name", `%${(slashed[1] ?? "").toLowerCase()}%`)})`)
        }
        if (query.includeDescription) likes.push(like("lower(r.description)", pattern))
      }
      return sql.or(likes)
    }

    const searchCondition = (query: RepositorySearch): Statement.Fragment => {
      const conditions: Array<Statement.Fragment> = query.visibility.map(visible)
      const bool = (column: string, value: Option.Option<boolean>) => {
        if (Option.isSome(value)) conditions.push(sql`${sql.literal(column)} = ${value.value}`)
      }
      bool("r.is_private", query.isPrivate)
      bool("r.is_template", query.template)
      bool("r.is_fork", query.fork)
      bool("r.is_mirror", query.mirror)
      bool("r.is_archived", query.archived)
      if (query.ownerId > 0) conditions.push(ownerCondition(query))
      if (query.keyword !== "") conditions.push(keywordCondition(query))
      return conditions.length === 0 ? sql`TRUE` : sql.and(conditions)
    }

    const searchOrder = (query: RepositorySearch): Statement.Fragment => {
      const terms: Array<Statement.Fragment> = []
      const slashed = query.keyword.split("/")
      if (slashed.length === 2) {
        terms.push(sql`CASE WHEN o.lower_name LIKE ${(slashed[0] ?? "").toLowerCase()} THEN 0 ELSE 1 END`)
      }
      Option.match(query.order, {
        onNone: () => terms.push(sql.literal("r.lower_name ASC, r.id ASC")),
        onSome: ({ sort, descending }) => {
          const direction = descending ? "DESC" : "ASC"
          terms.push(sql.literal(`${ORDER_COLUMN[sort]} ${direction}`))
          if (sort === "alpha") terms.push(sql.literal(`r.lower_name ${direction}`))
          terms.push(sql.literal(`r.id ${direction}`))
        }
      })
      return sql.csv(terms)
    }

    const page = (request: PageRequest) => sql`LIMIT ${request.limit} OFFSET ${offsetOf(request)}`

    return RepositoryStore.of({
      insert: (repository: NewRepository) =>
        sql<RepositoryRow>`INSERT INTO repositories (owner_id, name, lower_name, description, website, default_branch,
            wiki_branch, is_private, is_template, is_empty, is_archived, is_fork, fork_id, is_mirror, size, object_format,
            trust_model, units, num_stars, num_forks, num_watches, num_open_issues, num_open_pulls, created_at, updated_at,
            archived_at)
          VALUES (${repository.ownerId}, ${repository.name}, ${repository.name.toLowerCase()}, ${repository.description},
            ${repository.website}, ${repository.defaultBranch}, ${repository.wikiBranch}, ${repository.isPrivate},
            ${repository.isTemplate}, ${repository.isEmpty}, ${repository.isArchived}, ${repository.isFork},
            ${repository.forkId}, ${repository.isMirror}, ${repository.size}, ${repository.objectFormat},
            ${repository.trustModel}, ${unitsJson(repository.units)}::jsonb, ${repository.numStars}, ${repository.numForks},
            ${repository.numWatches}, ${repository.numOpenIssues}, ${repository.numOpenPulls}, ${repository.createdAt},
            ${repository.updatedAt}, ${repository.archivedAt})
          RETURNING ${returning}`.pipe(
          Effect.tap(() =>
            repository.forkId > 0
              ? Effect.asVoid(sql`UPDATE repositories SET num_forks = num_forks + 1 WHERE id = ${repository.forkId}`)
              : Effect.void),
          sql.withTransaction,
          Effect.catchTag("SqlError", sameName),
          Effect.flatMap((rows) => {
            const row = rows[0]
            return row === undefined ? Effect.die(new Error("INSERT returned no row")) : Effect.succeed(toRepository(row))
          })
        ),
      find: (ownerName, name) =>
        sql<OwnedRow>`SELECT ${owned} FROM ${fromOwned}
          WHERE o.lower_name = ${ownerName.toLowerCase()} AND r.lower_name = ${name.toLowerCase()}`.pipe(
          Effect.map(one),
          Effect.orDie
        ),
      findById: (id) => sql<OwnedRow>`SELECT ${owned} FROM ${fromOwned} WHERE r.id = ${id}`.pipe(Effect.map(one), Effect.orDie),
      update: (id, changes) =>
        Effect.gen(function*() {
          const sets: Array<Statement.Fragment> = []
          for (const [key, value] of Object.entries(changes)) {
            if (!isChangeKey(key) || value === undefined) continue
            const column = sql.literal(CHANGE_COLUMNS[key])
            if (key === "units") sets.push(sql`${column} = ${JSON.stringify(value)}::jsonb`)
            else sets.push(sql`${column} = ${value}`)
            if (key === "name" && typeof value === "string") sets.push(sql`lower_name = ${value.toLowerCase()}`)
          }
          const rows = sets.length === 0
            ? yield* sql<RepositoryRow>`SELECT ${returning} FROM repositories WHERE id = ${id}`
            : yield* sql<RepositoryRow>`UPDATE repositories SET ${sql.csv(sets)} WHERE id = ${id} RETURNING ${returning}`
          const row = rows[0]
          if (row === undefined) return yield* Effect.die(new Error(`repository ${id} does not exist`))
          return toRepository(row)
        }).pipe(Effect.catchTag("SqlError", sameName)),
      remove: (id) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM team_repos WHERE repo_id = ${id}`
          yield* sql`UPDATE repositories SET num_forks = num_forks - 1
            WHERE id = (SELECT fork_id FROM repositories WHERE id = ${id} AND is_fork AND fork_id > 0)`
          yield* sql`UPDATE repositories SET fork_id = 0, is_fork = false WHERE fork_id = ${id}`
          yield* sql`DELETE FROM repositories WHERE id = ${id}`
        })).pipe(Effect.orDie),
      listForOwner: (ownerId, includePrivate, request) =>
        Effect.gen(function*() {
          const condition = includePrivate ? sql`r.owner_id = ${ownerId}` : sql`r.owner_id = ${ownerId} AND NOT r.is_private`
          const [count] = yield* sql<{ total: unknown }>`SELECT count(*) AS total FROM repositories r WHERE ${condition}`
          const rows = yield* sql<OwnedRow>`SELECT ${owned} FROM ${fromOwned} WHERE ${condition} ORDER BY r.id ${page(request)}`
          return { items: rows.map(toOwned), total: int(count?.total ?? 0) }
        }).pipe(Effect.orDie),
      search: (query) =>
        Effect.gen(function*() {
          const condition = searchCondition(query)
          const counted = yield* sql<{ total: unknown }>`SELECT count(*) AS total FROM repositories r WHERE ${condition}`
          // Separate from the count: ordered by name, a common keyword fills its page early from the name index.
          const rows = yield* sql<OwnedRow>`SELECT ${owned} FROM ${fromOwned} WHERE ${condition}
            ORDER BY ${searchOrder(query)} ${page(query.page)}`
          return { items: rows.map(toOwned), total: totalOf(counted) }
        }).pipe(Effect.orDie),
      countForOwner: (ownerId) =>
        sql<{ total: unknown }>`SELECT count(*) AS total FROM repositories WHERE owner_id = ${ownerId}`.pipe(
          Effect.map(totalOf),
          Effect.orDie
        ),
      listForks: (baseId) =>
        sql<OwnedRow>`SELECT ${owned} FROM ${fromOwned} WHERE r.fork_id = ${baseId} ORDER BY r.id`.pipe(
          Effect.map((rows) => rows.map(toOwned)),
          Effect.orDie
        ),
      findFork: (ownerId, baseId) =>
        sql<OwnedRow>`SELECT ${owned} FROM ${fromOwned} WHERE r.owner_id = ${ownerId} AND r.fork_id = ${baseId} LIMIT 1`.pipe(
          Effect.map(one),
          Effect.orDie
        ),
      accessFacts: (userId, repositories) =>
        Effect.gen(function*() {
          if (repositories.length === 0) return { collaborations: new Map(), teams: new Map(), memberOf: new Set() } satisfies AccessFacts
          const repoIds = repositories.map((repository) => repository.id)
          const ownerIds = [...new Set(repositories.map((repository) => repository.ownerId))]
          const collaborations = yield* sql<{ repo_id: unknown; mode: string }>`
            SELECT repo_id, mode FROM collaborations WHERE user_id = ${userId} AND ${sql.in("repo_id", repoIds)}`
          const memberships = yield* sql<{ org_id: unknown }>`
            SELECT org_id FROM org_users WHERE user_id = ${userId} AND ${sql.in("org_id", ownerIds)}`
          const teamRows = yield* sql<TeamRow & { readonly repo_id: unknown }>`
            SELECT ${sql.literal(TEAM_COLUMNS)}, r.id AS repo_id
            FROM teams t JOIN team_users m ON m.team_id = t.id AND m.user_id = ${userId}
              JOIN repositories r ON r.owner_id = t.org_id
            WHERE ${sql.in("r.id", repoIds)}
              AND (t.includes_all_repositories OR EXISTS (SELECT 1 FROM team_repos x WHERE x.team_id = t.id AND x.repo_id = r.id))
            ORDER BY t.lower_name`
          const teams = new Map<number, Array<Team>>()
          for (const row of teamRows) {
            const repoId = int(row.repo_id)
            teams.set(repoId, [...(teams.get(repoId) ?? []), toTeam(row)])
          }
          return {
            collaborations: new Map(collaborations.flatMap((row): ReadonlyArray<readonly [number, AccessMode]> =>
              isAccessMode(row.mode) ? [[int(row.repo_id), row.mode]] : [])),
            teams,
            memberOf: new Set(memberships.map((row) => int(row.org_id)))
          } satisfies AccessFacts
        }).pipe(Effect.orDie),
      collaboration: (repositoryId, userId) =>
        sql<{ mode: string }>`SELECT mode FROM collaborations WHERE repo_id = ${repositoryId} AND user_id = ${userId}`.pipe(
          Effect.map((rows) => {
            const mode = rows[0]?.mode
            return mode !== undefined && isAccessMode(mode) ? Option.some(mode) : Option.none()
          }),
          Effect.orDie
        ),
      addCollaborator: (repositoryId, userId, mode) =>
        Effect.flatMap(Effect.clockWith((clock) => clock.currentTimeMillis), (millis) =>
          sql`INSERT INTO collaborations (repo_id, user_id, mode, created_at)
            VALUES (${repositoryId}, ${userId}, ${mode}, ${Math.floor(millis / 1000)})
            ON CONFLICT (repo_id, user_id) DO NOTHING`).pipe(Effect.asVoid, Effect.orDie),
      setCollaboration: (repositoryId, userId, mode) =>
        sql`UPDATE collaborations SET mode = ${mode} WHERE repo_id = ${repositoryId} AND user_id = ${userId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      removeCollaborator: (repositoryId, userId) =>
        sql`DELETE FROM collaborations WHERE repo_id = ${repositoryId} AND user_id = ${userId}`.pipe(Effect.asVoid, Effect.orDie),
      listCollaborators: (repositoryId, request) =>
        Effect.gen(function*() {
          const columns = sql.literal(ownerColumnNames.map((column) => `u.${column}`).join(", "))
          const [count] = yield* sql<{ total: unknown }>`SELECT count(*) AS total FROM collaborations WHERE repo_id = ${repositoryId}`
          const rows = yield* sql<UserRow>`SELECT ${columns} FROM collaborations c JOIN users u ON u.id = c.user_id
            WHERE c.repo_id = ${repositoryId} ORDER BY c.created_at, u.id ${page(request)}`
          return { items: rows.map(toUser), total: int(count?.total ?? 0) }
        }).pipe(Effect.orDie)
    })
  })
)
