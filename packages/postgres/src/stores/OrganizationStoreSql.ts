/**
 * OrganizationStore on Postgres. An organization is a `users` row of kind 'organization'
 * (written through UserStore, which maps name clashes to AlreadyExists); its creation with the
 * Owners team and the creator's memberships is one transaction.
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { OrganizationStore } from "@kiln/domain/org/OrganizationStore"
import { offsetOf, type PageRequest } from "@kiln/domain/Paging"
import { UserStore } from "@kiln/domain/user/UserStore"
import { totalOf } from "./Rows.ts"
import { insertTeam } from "./TeamStoreSql.ts"
import { toUser, USER_COLUMNS, type UserRow } from "./UserStoreSql.ts"

export const layer = Layer.effect(
  OrganizationStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = yield* UserStore
    const columns = sql.literal(USER_COLUMNS)

    const one = (rows: ReadonlyArray<UserRow>) => Option.map(Option.fromNullishOr(rows[0]), toUser)

    /** One page of organizations matching `where`, by lower-cased name, with the total. */
    const page = (where: Statement.Fragment, request: PageRequest) =>
      Effect.all([
        sql<UserRow>`SELECT ${columns} FROM users WHERE kind = 'organization' AND ${where}
          ORDER BY lower_name LIMIT ${request.limit} OFFSET ${offsetOf(request)}`,
        sql<{ total: unknown }>`SELECT count(*) AS total FROM users WHERE kind = 'organization' AND ${where}`
      ]).pipe(Effect.map(([rows, counted]) => ({ items: rows.map(toUser), total: totalOf(counted) })), Effect.orDie)

    return OrganizationStore.of({
      create: (account, owner, ownerTeam, ownerMembershipPublic) =>
        sql.withTransaction(Effect.gen(function*() {
          const organization = yield* users.insert(account, "")
          const team = yield* insertTeam(sql, ownerTeam(organization.id))
          yield* sql`INSERT INTO org_users ${
            sql.insert({ org_id: organization.id, user_id: owner.id, is_public: ownerMembershipPublic })
          }`
          yield* sql`INSERT INTO team_users ${sql.insert({ org_id: organization.id, team_id: team.id, user_id: owner.id })}`
          return { organization, ownerTeam: team }
        })).pipe(Effect.catchTag("SqlError", Effect.die)),
      findByName: (name) =>
        sql<UserRow>`SELECT ${columns} FROM users WHERE kind = 'organization' AND lower_name = ${name.toLowerCase()}`.pipe(
          Effect.map(one),
          Effect.orDie
        ),
      findById: (id) =>
        sql<UserRow>`SELECT ${columns} FROM users WHERE kind = 'organization' AND id = ${id}`.pipe(
          Effect.map(one),
          Effect.orDie
        ),
      list: (query) =>
        page(
          sql`${sql.in("visibility", query.visibilities)} AND ${
            query.memberId === undefined
              ? sql`TRUE`
              : sql`id IN (SELECT org_id FROM org_users WHERE user_id = ${query.memberId})`
          }`,
          query.page
        ),
      listForMember: (query) =>
        page(
          query.includePrivate
            ? sql`id IN (SELECT org_id FROM org_users WHERE user_id = ${query.userId})`
            : sql`visibility = 'public' AND id IN (SELECT org_id FROM org_users WHERE user_id = ${query.userId} AND is_public)`,
          query.page
        ),
      countMemberships: (userId) =>
        sql<{ total: unknown }>`SELECT count(*) AS total FROM org_users WHERE user_id = ${userId}`.pipe(
          Effect.map(totalOf),
          Effect.orDie
        ),
      remove: (orgId) =>
        sql`DELETE FROM users WHERE kind = 'organization' AND id = ${orgId}`.pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
