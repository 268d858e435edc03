/** UserStore on Postgres. One table for users and organizations: they share one name space. */
import { Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { AlreadyExists } from "@kiln/domain/errors"
import { offsetOf, type PageRequest } from "@kiln/domain/Paging"
import type { AccountChanges, NewAccount, User } from "@kiln/domain/user/User"
import { type AccountSort, UserStore } from "@kiln/domain/user/UserStore"
import { isVisibility, type Visibility } from "@kiln/domain/user/Visibility"
import * as EmbeddedReadCache from "./EmbeddedReadCache.ts"
import { bool, int, positionsOf, text, totalOf } from "./Rows.ts"
import { UnchangedRows } from "./UnchangedRows.ts"

export interface UserRow {
  readonly id: unknown
  readonly name: string
  readonly lower_name: string
  readonly kind: "individual" | "organization"
  readonly full_name: string
  readonly email: string
  readonly keep_email_private: boolean
  readonly login_name: string
  readonly source_id: unknown
  readonly is_admin: boolean
  readonly restricted: boolean
  readonly active: boolean
  readonly prohibit_login: boolean
  readonly must_change_password: boolean
  readonly visibility: Visibility
  readonly location: string
  readonly pronouns: string
  readonly keep_pronouns_private: boolean
  readonly website: string
  readonly description: string
  readonly language: string
  readonly max_repo_creation: number
  readonly allow_create_organization: boolean
  readonly allow_git_hook: boolean
  readonly allow_import_local: boolean
  readonly repo_admin_change_team_access: boolean
  readonly created_at: unknown
  readonly updated_at: unknown
  readonly last_login_at: unknown
}

/** The columns of a User, in the order `userAt` reads them. */
const USER_COLUMN_NAMES = [
  "id", "name", "lower_name", "kind", "full_name", "email", "keep_email_private", "login_name", "source_id", "is_admin",
  "restricted", "active", "prohibit_login", "must_change_password", "visibility", "location", "pronouns",
  "keep_pronouns_private", "website", "description", "language", "max_repo_creation", "allow_create_organization",
  "allow_git_hook", "allow_import_local", "repo_admin_change_team_access", "created_at", "updated_at", "last_login_at"
] as const satisfies ReadonlyArray<keyof UserRow>

/** The columns of a User, for queries that join users (prefix `u.`). */
export const USER_COLUMNS = USER_COLUMN_NAMES.join(", ")

export const userColumns = (alias: string): string => USER_COLUMN_NAMES.map((column) => `${alias}.${column}`).join(", ")

const at = positionsOf(USER_COLUMN_NAMES)

/** A stored visibility; the database only holds the three (and the most private is the safe reading). */
const visibilityOf = (value: unknown): Visibility => {
  const visibility = text(value)
  return isVisibility(visibility) ? visibility : "private"
}

/** The User in a row read as values (`.values`), its USER_COLUMNS starting at position `from`. */
export const userAt = (values: ReadonlyArray<unknown>, from: number): User => ({
  id: int(values[from + at.id]),
  name: text(values[from + at.name]),
  lowerName: text(values[from + at.lower_name]),
  kind: values[from + at.kind] === "organization" ? "organization" : "individual",
  fullName: text(values[from + at.full_name]),
  email: text(values[from + at.email]),
  keepEmailPrivate: bool(values[from + at.keep_email_private]),
  loginName: text(values[from + at.login_name]),
  sourceId: int(values[from + at.source_id]),
  isAdmin: bool(values[from + at.is_admin]),
  restricted: bool(values[from + at.restricted]),
  active: bool(values[from + at.active]),
  prohibitLogin: bool(values[from + at.prohibit_login]),
  mustChangePassword: bool(values[from + at.must_change_password]),
  visibility: visibilityOf(values[from + at.visibility]),
  location: text(values[from + at.location]),
  pronouns: text(values[from + at.pronouns]),
  keepPronounsPrivate: bool(values[from + at.keep_pronouns_private]),
  website: text(values[from + at.website]),
  description: text(values[from + at.description]),
  language: text(values[from + at.language]),
  maxRepoCreation: int(values[from + at.max_repo_creation]),
  allowCreateOrganization: bool(values[from + at.allow_create_organization]),
  allowGitHook: bool(values[from + at.allow_git_hook]),
  allowImportLocal: bool(values[from + at.allow_import_local]),
  repoAdminChangeTeamAccess: bool(values[from + at.repo_admin_change_team_access]),
  createdAt: int(values[from + at.created_at]),
  updatedAt: int(values[from + at.updated_at]),
  lastLoginAt: int(values[from + at.last_login_at])
})

/** The User in a row object with USER_COLUMNS (queries of other stores that join users). */
export const toUser = (row: UserRow): User => userAt(USER_COLUMN_NAMES.map((column) => row[column]), 0)

const COLUMN_OF: { readonly [K in keyof AccountChanges]-?: string } = {
  name: "name",
  lowerName: "lower_name",
  fullName: "full_name",
  email: "email",
  keepEmailPrivate: "keep_email_private",
  loginName: "login_name",
  sourceId: "source_id",
  isAdmin: "is_admin",
  restricted: "restricted",
  active: "active",
  prohibitLogin: "prohibit_login",
  mustChangePassword: "must_change_password",
  visibility: "visibility",
  location: "location",
  pronouns: "pronouns",
  keepPronounsPrivate: "keep_pronouns_private",
  website: "website",
  description: "description",
  language: "language",
  maxRepoCreation: "max_repo_creation",
  allowCreateOrganization: "allow_create_organization",
  allowGitHook: "allow_git_hook",
  allowImportLocal: "allow_import_local",
  repoAdminChangeTeamAccess: "repo_admin_change_team_access",
  updatedAt: "updated_at",
  lastLoginAt: "last_login_at"
}

const ORDER_OF: Record<AccountSort, string> = {
  oldest: "created_at ASC, id ASC",
  newest: "created_at DESC, id DESC",
  alphabetically: "lower_name ASC",
  reversealphabetically: "lower_name DESC",
  recentupdate: "updated_at DESC, id DESC",
  leastupdate: "updated_at ASC, id ASC"
}

/** A unique violation on the name or e-mail becomes Forgejo's AlreadyExists text. */
export const accountConflict = (name: string, email: string | undefined) => (error: SqlError.SqlError) =>
  error.reason._tag === "UniqueViolation"
    ? Effect.fail(
      new AlreadyExists({
        message: error.reason.constraint.includes("email") && email !== undefined
          ? `e-mail already in use [email: ${email}]`
          : `user already exists [name: ${name}]`
      })
    )
    : Effect.die(error)

/** Accounts found by name kept on the embedded database until the next commit (EmbeddedReadCache.ts). */
const BY_NAME_ENTRIES = 4_096
/** Accounts found by name handed out again while their rows are unchanged (UnchangedRows.ts). */
const UNCHANGED_ENTRIES = 4_096

export const layer = Layer.effect(
  UserStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(USER_COLUMNS)
    // A lookup by name is what `GET /users/{username}` and every owner's route do: kept on the
    // embedded database, and the same object while the row is unchanged, which lets a caller keep
    // work on it (UserAnswers keeps the JSON answer).
    const byName = yield* EmbeddedReadCache.make<Option.Option<User>>(BY_NAME_ENTRIES)
    const unchanged = new UnchangedRows<User>(UNCHANGED_ENTRIES)
    const sameUser = (rows: ReadonlyArray<ReadonlyArray<unknown>>, keep: boolean): Option.Option<User> => {
      const row = rows[0]
      if (row === undefined) return Option.none()
      return Option.some(unchanged.same(int(row[at.id]), text(row[row.length - 1]), () => userAt(row, 0), keep))
    }

    const one = (rows: ReadonlyArray<ReadonlyArray<unknown>>) => {
      const row = rows[0]
      return row === undefined ? Option.none() : Option.some(userAt(row, 0))
    }

    const returned = (rows: ReadonlyArray<ReadonlyArray<unknown>>) => {
      const row = rows[0]
      return row === undefined ? Effect.die(new Error("the statement returned no account")) : Effect.succeed(userAt(row, 0))
    }

    const insert = (account: NewAccount, passwordHash: string) =>
      sql`INSERT INTO users ${
        sql.insert({
          name: account.name,
          lower_name: account.name.toLowerCase(),
          kind: account.kind,
          full_name: account.fullName,
          email: account.email,
          keep_email_private: account.keepEmailPrivate,
          login_name: account.loginName,
          source_id: account.sourceId,
          is_admin: account.isAdmin,
          restricted: account.restricted,
          active: account.active,
          prohibit_login: account.prohibitLogin,
          must_change_password: account.mustChangePassword,
          visibility: account.visibility,
          location: account.location,
          pronouns: account.pronouns,
          keep_pronouns_private: account.keepPronounsPrivate,
          website: account.website,
          description: account.description,
          language: account.language,
          max_repo_creation: account.maxRepoCreation,
          allow_create_organization: account.allowCreateOrganization,
          allow_git_hook: account.allowGitHook,
          allow_import_local: account.allowImportLocal,
          repo_admin_change_team_access: account.repoAdminChangeTeamAccess,
          password_hash: passwordHash,
          created_at: account.createdAt,
          updated_at: account.updatedAt,
          last_login_at: account.lastLoginAt
        })
      } RETURNING ${columns}`.values.pipe(
        Effect.catchTag("SqlError", accountConflict(account.name, account.kind === "individual" ? account.email : undefined)),
        Effect.flatMap(returned)
      )

    const update = (id: number, changes: AccountChanges) => {
      const assignments: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(changes)) {
        const column = COLUMN_OF[key as keyof AccountChanges]
        if (value !== undefined) assignments[column] = value
      }
      if (changes.name !== undefined) assignments["lower_name"] = changes.name.toLowerCase()
      return sql`UPDATE users SET ${sql.update(assignments)} WHERE id = ${id} RETURNING ${columns}`.values.pipe(
        Effect.catchTag("SqlError", accountConflict(changes.name ?? String(id), changes.email)),
        Effect.flatMap(returned)
      )
    }

    /** One page of accounts matching `where`, with the total before paging. */
    const page = (where: Statement.Fragment, order: Statement.Fragment, request: PageRequest) =>
      Effect.all([
        sql`SELECT ${columns} FROM users WHERE ${where} ORDER BY ${order}
          LIMIT ${request.limit} OFFSET ${offsetOf(request)}`.values,
        sql<{ total: unknown }>`SELECT count(*) AS total FROM users WHERE ${where}`
      ]).pipe(
        Effect.map(([rows, counted]) => ({ items: rows.map((row) => userAt(row, 0)), total: totalOf(counted) })),
        Effect.orDie
      )

    return UserStore.of({
      insert,
      findById: (id) => sql`SELECT ${columns} FROM users WHERE id = ${id}`.values.pipe(Effect.map(one), Effect.orDie),
      findByName: (name) => {
        const lowerName = name.toLowerCase()
        return byName.through(
          lowerName,
          Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) =>
            sql`SELECT ${columns}, xmin::text FROM users WHERE lower_name = ${lowerName}`.values.pipe(
              Effect.map((rows) => sameUser(rows, Option.isNone(transaction))),
              Effect.orDie
            ))
        )
      },
      findSignInCandidate: (login) =>
        sql`SELECT ${columns} FROM users
          WHERE kind = 'individual' AND (lower_name = ${login.toLowerCase()} OR lower(email) = ${login.toLowerCase()})
          ORDER BY lower_name = ${login.toLowerCase()} DESC LIMIT 1`.values.pipe(Effect.map(one), Effect.orDie),
      findByEmail: (email) =>
        sql`SELECT ${columns} FROM users WHERE kind = 'individual' AND lower(email) = ${email.toLowerCase()}`.values.pipe(
          Effect.map(one),
          Effect.orDie
        ),
      update,
      setPasswordHash: (id, hash) => sql`UPDATE users SET password_hash = ${hash} WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      passwordHash: (id) =>
        sql<{ password_hash: string }>`SELECT password_hash FROM users WHERE id = ${id}`.pipe(
          Effect.map((rows) => rows.length === 0 || rows[0]?.password_hash === "" ? Option.none() : Option.some(String(rows[0]?.password_hash))),
          Effect.orDie
        ),
      remove: (id) => sql`DELETE FROM users WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      list: (query) => {
        const where = sql`kind = ${query.kind}
          AND ${query.loginName === undefined ? sql`TRUE` : sql`login_name = ${query.loginName}`}
          AND ${query.sourceId === undefined ? sql`TRUE` : sql`source_id = ${query.sourceId}`}
          AND ${query.visibilities === undefined ? sql`TRUE` : sql.in("visibility", query.visibilities)}`
        return page(where, sql.literal(ORDER_OF[query.sort]), query.page)
      },
      search: (query) => {
        const pattern = `%${query.keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
        const keywordFilter = query.keyword === ""
          ? sql`TRUE`
          : query.matchEmail
          ? sql`(lower_name LIKE ${pattern} OR lower(full_name) LIKE ${pattern} OR (NOT keep_email_private AND lower(email) LIKE ${pattern}))`
          : sql`(lower_name LIKE ${pattern} OR lower(full_name) LIKE ${pattern})`
        const where = sql`kind = ${query.kind} AND ${keywordFilter}
          AND ${query.id === undefined ? sql`TRUE` : sql`id = ${query.id}`}
          AND ${sql.in("visibility", query.visibilities)}`
        return page(where, sql.literal("lower_name ASC"), query.page)
      },
      count: (kind) =>
        sql<{ total: unknown }>`SELECT count(*) AS total FROM users WHERE kind = ${kind}`.pipe(Effect.map(totalOf), Effect.orDie),
      lockAdmins: () =>
        sql<{ total: unknown }>`SELECT count(*) AS total
          FROM (SELECT id FROM users WHERE kind = 'individual' AND is_admin FOR UPDATE) admins`.pipe(
          Effect.map(totalOf),
          Effect.orDie
        )
    })
  })
)
