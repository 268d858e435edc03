/** PublicKeyStore on Postgres. */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { AlreadyExists } from "@kiln/domain/errors"
import { offsetOf } from "@kiln/domain/Paging"
import type { PublicKey } from "@kiln/domain/user/PublicKey"
import { PublicKeyStore } from "@kiln/domain/user/PublicKeyStore"
import { int, totalOf } from "./Rows.ts"

interface KeyRow {
  readonly id: unknown
  readonly owner_id: unknown
  readonly title: string
  readonly content: string
  readonly fingerprint: string
  readonly read_only: boolean
  readonly created_at: unknown
  readonly updated_at: unknown
}

const toKey = (row: KeyRow): PublicKey => ({
  id: int(row.id),
  ownerId: int(row.owner_id),
  title: row.title,
  content: row.content,
  fingerprint: row.fingerprint,
  readOnly: row.read_only,
  createdAt: int(row.created_at),
  updatedAt: int(row.updated_at)
})

export const layer = Layer.effect(
  PublicKeyStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return PublicKeyStore.of({
      insert: (key) =>
        // Forgejo checks the fingerprint: the same key with another comment is the same key, an
        // account's or a deploy key.
        sql<{ id: unknown }>`SELECT id FROM public_keys WHERE fingerprint = ${key.fingerprint} LIMIT 1`.pipe(
          Effect.orDie,
          Effect.flatMap((found) =>
            found.length > 0 ? Effect.fail(new AlreadyExists({ message: "Key content has been used as non-deploy key" })) : Effect.void
          ),
          Effect.andThen(sql<KeyRow>`INSERT INTO public_keys ${
          sql.insert({
            owner_id: key.ownerId,
            title: key.title,
            content: key.content,
            fingerprint: key.fingerprint,
            read_only: key.readOnly,
            created_at: key.createdAt,
            updated_at: key.createdAt
          })
        } RETURNING *`.pipe(
          Effect.map((rows) => toKey(rows[0] as KeyRow)),
          Effect.catchTag("SqlError", (error) =>
            error.reason._tag === "UniqueViolation"
              ? Effect.fail(
                new AlreadyExists({
                  message: error.reason.constraint.includes("title")
                    ? "Key title has been used"
                    : "Key content has been used as non-deploy key"
                })
              )
              : Effect.die(error))
        ))),
      findById: (id) =>
        sql<KeyRow>`SELECT * FROM public_keys WHERE id = ${id} AND kind = 'user'`.pipe(
          Effect.map((rows) => rows.length === 0 ? Option.none() : Option.some(toKey(rows[0] as KeyRow))),
          Effect.orDie
        ),
      remove: (id) => sql`DELETE FROM public_keys WHERE id = ${id} AND kind = 'user'`.pipe(Effect.asVoid, Effect.orDie),
      list: (query) => {
        const where = sql`kind = 'user' AND ${query.ownerId === undefined ? sql`TRUE` : sql`owner_id = ${query.ownerId}`}
          AND ${query.fingerprint === undefined ? sql`TRUE` : sql`fingerprint = ${query.fingerprint}`}`
        return Effect.all([
          sql<KeyRow>`SELECT * FROM public_keys WHERE ${where} ORDER BY id ASC
            LIMIT ${query.page.limit} OFFSET ${offsetOf(query.page)}`,
          sql<{ total: unknown }>`SELECT count(*) AS total FROM public_keys WHERE ${where}`
        ]).pipe(Effect.map(([rows, counted]) => ({ items: rows.map(toKey), total: totalOf(counted) })), Effect.orDie)
      }
    })
  })
)
