/**
 * RepositoryStore on Postgres: repositories joined with their owners, collaborations, and the
 * facts behind a user's access. Search is RepositorySearchSql.ts.
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
import { type AccessFacts, RepositoryStore } from "@kiln/domain/repo/RepositoryStore"
import * as EmbeddedReadCache from "./EmbeddedReadCache.ts"
import { makeRepositorySearch } from "./RepositorySearchSql.ts"
import { bool, int, positionsOf, text, totalOf } from "./Rows.ts"
import { TEAM_COLUMNS, type TeamRow, toTeam } from "./TeamStoreSql.ts"
import { UnchangedRows } from "./UnchangedRows.ts"
import { userAt, userColumns } from "./UserStoreSql.ts"

/** The columns of a Repository, in the order `repositoryAt` reads them. */
const REPOSITORY_COLUMNS = [
  "id", "owner_id", "name", "lower_name", "description", "website", "default_branch", "wiki_branch", "is_private",
  "is_template", "is_empty", "is_archived", "is_fork", "fork_id", "is_mirror", "original_url", "size", "object_format", "trust_model",
  "units", "num_stars", "num_forks", "num_watches", "num_open_issues", "num_open_pulls", "created_at", "updated_at",
  "archived_at", "num_releases"
] as const

const at = positionsOf(REPOSITORY_COLUMNS)

/** Where the owner's USER_COLUMNS start in a row of OWNED_COLUMNS. */
const OWNER_FROM = REPOSITORY_COLUMNS.length

/** A repository `r` with its owner `o` (read with `ownedAt`). */
export const OWNED_COLUMNS = [...REPOSITORY_COLUMNS.map((column) => `r.${column}`), userColumns("o")].join(", ")

/** A repository's row alone (read with `repositoryAt`). */
const RETURNING_COLUMNS = REPOSITORY_COLUMNS.join(", ")

type Json = Readonly<Record<string, unknown>>

const isJsonObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** jsonb arrives parsed from the server and as text through some clients. */
const jsonOf = (value: unknown): Json => {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value
  return isJsonObject(parsed) ? parsed : {}
}

const textIn = (json: Json, key: string): string => {
  const value = json[key]
  return typeof value === "string" ? value : ""
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
  // Rows written before external units existed have neither key: no external tracker or wiki.
  const externalTracker = isJsonObject(json["externalTracker"]) ? json["externalTracker"] : {}
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
    wikiGloballyEditable: flag(json, "wikiGloballyEditable", false),
    externalTracker: {
      url: textIn(externalTracker, "url"),
      format: textIn(externalTracker, "format"),
      style: textIn(externalTracker, "style"),
      regexpPattern: textIn(externalTracker, "regexpPattern")
    },
    externalWikiUrl: textIn(json, "externalWikiUrl")
  }
}

/** The Repository in a row read as values (`.values`), its RETURNING_COLUMNS starting at position `from`. */
export const repositoryAt = (values: ReadonlyArray<unknown>, from: number): Repository => ({
  id: int(values[from + at.id]),
  ownerId: int(values[from + at.owner_id]),
  name: text(values[from + at.name]),
  lowerName: text(values[from + at.lower_name]),
  description: text(values[from + at.description]),
  website: text(values[from + at.website]),
  defaultBranch: text(values[from + at.default_branch]),
  wikiBranch: text(values[from + at.wiki_branch]),
  isPrivate: bool(values[from + at.is_private]),
  isTemplate: bool(values[from + at.is_template]),
  isEmpty: bool(values[from + at.is_empty]),
  isArchived: bool(values[from + at.is_archived]),
  isFork: bool(values[from + at.is_fork]),
  forkId: int(values[from + at.fork_id]),
  isMirror: bool(values[from + at.is_mirror]),
  originalUrl: text(values[from + at.original_url]),
  size: int(values[from + at.size]),
  objectFormat: values[from + at.object_format] === "sha256" ? "sha256" : "sha1",
  trustModel: trustModelOf(text(values[from + at.trust_model])),
  units: unitsOf(values[from + at.units]),
  numStars: int(values[from + at.num_stars]),
  numForks: int(values[from + at.num_forks]),
  numWatches: int(values[from + at.num_watches]),
  numOpenIssues: int(values[from + at.num_open_issues]),
  numOpenPulls: int(values[from + at.num_open_pulls]),
  numReleases: int(values[from + at.num_releases]),
  createdAt: int(values[from + at.created_at]),
  updatedAt: int(values[from + at.updated_at]),
  archivedAt: int(values[from + at.archived_at])
})

/** The repository and its owner in a row of OWNED_COLUMNS read as values, starting at position `from`. */
export const ownedAt = (values: ReadonlyArray<unknown>, from: number): OwnedRepository => ({
  repository: repositoryAt(values, from),
  owner: userAt(values, from + OWNER_FROM)
})

/** The array columns of `accessFacts`. */
interface FactArrays {
  readonly collaboration_repos: unknown
  readonly collaboration_modes: unknown
  readonly memberships: unknown
}

const arrayOf = (value: unknown): ReadonlyArray<unknown> => Array.isArray(value) ? value : []

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

/** Repositories kept by name on the embedded database (EmbeddedReadCache.ts): ~3 KB each. */
const BY_NAME_ENTRIES = 4_096

/** Repositories handed out again while their rows are unchanged (UnchangedRows.ts). */
const UNCHANGED_ENTRIES = 4_096

/** The row versions of both tables, last in a row after OWNED_COLUMNS: what UnchangedRows compares. */
const VERSION_COLUMNS = "r.xmin::text, o.xmin::text"

export const layer = Layer.effect(
  RepositoryStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ownedColumns = sql.literal(OWNED_COLUMNS)
    const returning = sql.literal(RETURNING_COLUMNS)
    const fromOwned = sql.literal("repositories r JOIN users o ON o.id = r.owner_id")
    // Every API request and git request about a repository looks it up by name first.
    const byName = yield* EmbeddedReadCache.make<Option.Option<OwnedRepository>>(BY_NAME_ENTRIES)
    const unchanged = new UnchangedRows<OwnedRepository>(UNCHANGED_ENTRIES)
    /**
     * A row of OWNED_COLUMNS (from `from`) ending in VERSION_COLUMNS as the same object while both
     * rows are unchanged: a search page or a lookup of an unchanged repository is then rendered from
     * what was kept on it (the server keeps its JSON on it: KeptRenderings).
     */
    const sameOwnedAt = (row: ReadonlyArray<unknown>, from: number, keep: boolean): OwnedRepository => {
      const length = row.length
      return unchanged.same(int(row[from + at.id]), `${text(row[length - 2])} ${text(row[length - 1])}`, () => ownedAt(row, from), keep)
    }
    const searchRows = yield* makeRepositorySearch(`${OWNED_COLUMNS}, ${VERSION_COLUMNS}`, sameOwnedAt)
    const versions = sql.literal(VERSION_COLUMNS)
    const sameOwned = (rows: ReadonlyArray<ReadonlyArray<unknown>>, keep: boolean): Option.Option<OwnedRepository> => {
      const row = rows[0]
      return row === undefined ? Option.none() : Option.some(sameOwnedAt(row, 0, keep))
    }

    const sameName = (error: SqlError.SqlError) =>
      error.reason._tag === "UniqueViolation"
        ? Effect.fail(new AlreadyExists({ message: "repository already exists" }))
        : Effect.die(error)

    const one = (rows: ReadonlyArray<ReadonlyArray<unknown>>) => {
      const row = rows[0]
      return row === undefined ? Option.none() : Option.some(ownedAt(row, 0))
    }

    const owned = (rows: ReadonlyArray<ReadonlyArray<unknown>>) => rows.map((row) => ownedAt(row, 0))

    const page = (request: PageRequest) => sql`LIMIT ${request.limit} OFFSET ${offsetOf(request)}`

    return RepositoryStore.of({
      insert: (repository: NewRepository) =>
        sql`INSERT INTO repositories (owner_id, name, lower_name, description, website, default_branch,
            wiki_branch, is_private, is_template, is_empty, is_archived, is_fork, fork_id, is_mirror, original_url, size,
            object_format, trust_model, units, num_stars, num_forks, num_watches, num_open_issues, num_open_pulls, created_at,
            updated_at, archived_at)
          VALUES (${repository.ownerId}, ${repository.name}, ${repository.name.toLowerCase()}, ${repository.description},
            ${repository.website}, ${repository.defaultBranch}, ${repository.wikiBranch}, ${repository.isPrivate},
            ${repository.isTemplate}, ${repository.isEmpty}, ${repository.isArchived}, ${repository.isFork},
            ${repository.forkId}, ${repository.isMirror}, ${repository.originalUrl}, ${repository.size}, ${repository.objectFormat},
            ${repository.trustModel}, ${unitsJson(repository.units)}::jsonb, ${repository.numStars}, ${repository.numForks},
            ${repository.numWatches}, ${repository.numOpenIssues}, ${repository.numOpenPulls}, ${repository.createdAt},
            ${repository.updatedAt}, ${repository.archivedAt})
          RETURNING ${returning}`.values.pipe(
          Effect.tap(() =>
            repository.forkId > 0
              ? Effect.asVoid(sql`UPDATE repositories SET num_forks = num_forks + 1 WHERE id = ${repository.forkId}`)
              : Effect.void),
          sql.withTransaction,
          Effect.catchTag("SqlError", sameName),
          Effect.flatMap((rows) => {
            const row = rows[0]
            return row === undefined ? Effect.die(new Error("INSERT returned no row")) : Effect.succeed(repositoryAt(row, 0))
          })
        ),
      find: (ownerName, name) => {
        const owner = ownerName.toLowerCase()
        const lowerName = name.toLowerCase()
        return byName.through(
          `${owner}/${lowerName}`,
          Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) =>
            sql`SELECT ${ownedColumns}, ${versions} FROM ${fromOwned} WHERE o.lower_name = ${owner} AND r.lower_name = ${lowerName}`
              .values.pipe(
                Effect.map((rows) => sameOwned(rows, Option.isNone(transaction))),
                Effect.orDie
              ))
        )
      },
      findById: (id) => sql`SELECT ${ownedColumns} FROM ${fromOwned} WHERE r.id = ${id}`.values.pipe(Effect.map(one), Effect.orDie),
      findByIds: (ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : sql`SELECT ${ownedColumns} FROM ${fromOwned} WHERE ${sql.in("r.id", ids)}`.values.pipe(
            Effect.map(owned),
            Effect.orDie
          ),
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
            ? yield* sql`SELECT ${returning} FROM repositories WHERE id = ${id}`.values
            : yield* sql`UPDATE repositories SET ${sql.csv(sets)} WHERE id = ${id} RETURNING ${returning}`.values
          const row = rows[0]
          if (row === undefined) return yield* Effect.die(new Error(`repository ${id} does not exist`))
          return repositoryAt(row, 0)
        }).pipe(Effect.catchTag("SqlError", sameName)),
      updateAfterPush: (id, names, branches, changes) =>
        sql`UPDATE repositories SET size = ${changes.size}, is_empty = ${changes.isEmpty}, updated_at = ${changes.updatedAt}
          WHERE id = ${id} AND lower_name = ${names.name.toLowerCase()}
            AND owner_id = (SELECT u.id FROM users u WHERE u.lower_name = ${names.owner.toLowerCase()})
            ${branches.length === 0 ? sql`` : sql`AND NOT (is_empty AND NOT ${sql.in("default_branch", branches)})`}
          RETURNING ${returning}`.values.pipe(
          Effect.map((rows) => {
            const row = rows[0]
            return row === undefined ? Option.none() : Option.some(repositoryAt(row, 0))
          }),
          Effect.orDie
        ),
      remove: (id) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM team_repos WHERE repo_id = ${id}`
          yield* sql`UPDATE repositories SET num_forks = num_forks - 1
            WHERE id = (SELECT fork_id FROM repositories WHERE id = ${id} AND is_fork AND fork_id > 0)`
          yield* sql`UPDATE repositories SET fork_id = 0, is_fork = false WHERE fork_id = ${id}`
          yield* sql`DELETE FROM repositories WHERE id = ${id}`
        })).pipe(Effect.orDie),
      search: (query) =>
        Effect.map(searchRows(query), ({ rows, total }) => ({ items: rows, total })),
      countForOwner: (ownerId) =>
        sql<{ total: unknown }>`SELECT count(*) AS total FROM repositories WHERE owner_id = ${ownerId}`.pipe(
          Effect.map(totalOf),
          Effect.orDie
        ),
      listForks: (baseId) =>
        sql`SELECT ${ownedColumns} FROM ${fromOwned} WHERE r.fork_id = ${baseId} ORDER BY r.id`.values.pipe(
          Effect.map(owned),
          Effect.orDie
        ),
      findFork: (ownerId, baseId) =>
        sql`SELECT ${ownedColumns} FROM ${fromOwned} WHERE r.owner_id = ${ownerId} AND r.fork_id = ${baseId} LIMIT 1`.values.pipe(
          Effect.map(one),
          Effect.orDie
        ),
      accessFacts: (userId, repositories) =>
        Effect.gen(function*() {
          if (repositories.length === 0) return { collaborations: new Map(), teams: new Map(), memberOf: new Set() } satisfies AccessFacts
          const repoIds = repositories.map((repository) => repository.id)
          const ownerIds = [...new Set(repositories.map((repository) => repository.ownerId))]
          // One round trip: the collaborations and memberships as arrays, repeated on each row of the
          // user's teams covering the repositories (one row without a team when there is none).
          const inCollaborations = sql`FROM collaborations c WHERE c.user_id = ${userId} AND ${sql.in("c.repo_id", repoIds)}`
          const rows = yield* sql<TeamRow & FactArrays & { readonly repo_id: unknown }>`
            SELECT ARRAY(SELECT c.repo_id ${inCollaborations} ORDER BY c.repo_id) AS collaboration_repos,
              ARRAY(SELECT c.mode ${inCollaborations} ORDER BY c.repo_id) AS collaboration_modes,
              ARRAY(SELECT m.org_id FROM org_users m WHERE m.user_id = ${userId} AND ${sql.in("m.org_id", ownerIds)}) AS memberships,
              covering.*
            FROM (SELECT 1) AS one LEFT JOIN LATERAL (
              SELECT ${sql.literal(TEAM_COLUMNS)}, r.id AS repo_id
              FROM teams t JOIN team_users m ON m.team_id = t.id AND m.user_id = ${userId}
                JOIN repositories r ON r.owner_id = t.org_id
              WHERE ${sql.in("r.id", repoIds)}
                AND (t.includes_all_repositories OR EXISTS (SELECT 1 FROM team_repos x WHERE x.team_id = t.id AND x.repo_id = r.id))
            ) covering ON true
            ORDER BY covering.lower_name`
          const first = rows[0]
          const collaborationRepos = arrayOf(first?.collaboration_repos)
          const collaborationModes = arrayOf(first?.collaboration_modes)
          const teamRows = rows.filter((row) => row.id !== null)
          const teams = new Map<number, Array<Team>>()
          for (const row of teamRows) {
            const repoId = int(row.repo_id)
            teams.set(repoId, [...(teams.get(repoId) ?? []), toTeam(row)])
          }
          return {
            collaborations: new Map(collaborationRepos.flatMap((repoId, index): ReadonlyArray<readonly [number, AccessMode]> => {
              const mode = collaborationModes[index]
              return typeof mode === "string" && isAccessMode(mode) ? [[int(repoId), mode]] : []
            })),
            teams,
            memberOf: new Set(arrayOf(first?.memberships).map(int))
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
          const [count] = yield* sql<{ total: unknown }>`SELECT count(*) AS total FROM collaborations WHERE repo_id = ${repositoryId}`
          const rows = yield* sql`SELECT ${sql.literal(userColumns("u"))} FROM collaborations c JOIN users u ON u.id = c.user_id
            WHERE c.repo_id = ${repositoryId} ORDER BY c.created_at, u.id ${page(request)}`.values
          return { items: rows.map((row) => userAt(row, 0)), total: int(count?.total ?? 0) }
        }).pipe(Effect.orDie)
    })
  })
)
