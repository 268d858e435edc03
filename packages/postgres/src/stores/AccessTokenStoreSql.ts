/** AccessTokenStore on Postgres: scopes are stored comma-joined, as Forgejo does. */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { AccessToken, StoredAccessToken } from "@kiln/domain/auth/AccessToken"
import type { AccessTokenScope } from "@kiln/domain/auth/AccessTokenScope"
import { AccessTokenStore } from "@kiln/domain/auth/AccessTokenStore"
import { AlreadyExists } from "@kiln/domain/errors"
import { offsetOf } from "@kiln/domain/Paging"
import { int, totalOf } from "./Rows.ts"
import { toUser, userColumns, type UserRow } from "./UserStoreSql.ts"

interface TokenRow {
  readonly id: unknown
  readonly user_id: unknown
  readonly name: string
  readonly scopes: string
  readonly last_eight: string
  readonly created_at: unknown
}

const toToken = (row: TokenRow): AccessToken => ({
  id: int(row.id),
  userId: int(row.user_id),
  name: row.name,
  // Only normalised scopes are ever written, so they read back as scopes.
  scopes: row.scopes === "" ? [] : row.scopes.split(",") as Array<AccessTokenScope>,
  lastEight: row.last_eight,
  createdAt: int(row.created_at)
})

export const layer = Layer.effect(
  AccessTokenStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<TokenRow>) => rows.length === 0 ? Option.none() : Option.some(toToken(rows[0] as TokenRow))

    return AccessTokenStore.of({
      insert: (token) =>
        sql<TokenRow>`INSERT INTO access_tokens ${
          sql.insert({
            user_id: token.userId,
            name: token.name,
            scopes: token.scopes.join(","),
            last_eight: token.lastEight,
            salt: token.salt,
            hash: token.hash,
            created_at: token.createdAt
          })
        } RETURNING id, user_id, name, scopes, last_eight, created_at`.pipe(
          Effect.map((rows) => toToken(rows[0] as TokenRow)),
          Effect.catchTag("SqlError", (error) =>
            error.reason._tag === "UniqueViolation"
              ? Effect.fail(new AlreadyExists({ message: "access token name has been used already" }))
              : Effect.die(error))
        ),
      listForUser: (userId, page) =>
        Effect.all([
          sql<TokenRow>`SELECT id, user_id, name, scopes, last_eight, created_at FROM access_tokens
            WHERE user_id = ${userId} ORDER BY id DESC LIMIT ${page.limit} OFFSET ${offsetOf(page)}`,
          sql<{ total: unknown }>`SELECT count(*) AS total FROM access_tokens WHERE user_id = ${userId}`
        ]).pipe(Effect.map(([rows, counted]) => ({ items: rows.map(toToken), total: totalOf(counted) })), Effect.orDie),
      findById: (userId, id) =>
        sql<TokenRow>`SELECT id, user_id, name, scopes, last_eight, created_at FROM access_tokens
          WHERE user_id = ${userId} AND id = ${id}`.pipe(Effect.map(one), Effect.orDie),
      findByName: (userId, name) =>
        sql<TokenRow>`SELECT id, user_id, name, scopes, last_eight, created_at FROM access_tokens
          WHERE user_id = ${userId} AND name = ${name}`.pipe(Effect.map(one), Effect.orDie),
      candidates: (lastEight) =>
        sql<TokenRow & UserRow & { token_id: unknown; token_name: string; token_created_at: unknown; salt: string; hash: string }>`
          SELECT t.id AS token_id, t.name AS token_name, t.created_at AS token_created_at, t.scopes, t.last_eight,
                 t.salt, t.hash, t.user_id, ${sql.literal(userColumns("u"))}
          FROM access_tokens t JOIN users u ON u.id = t.user_id
          WHERE t.last_eight = ${lastEight}`.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({
              token: {
                ...toToken({ ...row, id: row.token_id, name: row.token_name, created_at: row.token_created_at }),
                salt: row.salt,
                hash: row.hash
              } satisfies StoredAccessToken,
              owner: toUser(row)
            }))
          ),
          Effect.orDie
        ),
      remove: (id) => sql`DELETE FROM access_tokens WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
