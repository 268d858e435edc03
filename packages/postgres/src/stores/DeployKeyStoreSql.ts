/** DeployKeyStore on Postgres: `deploy_keys` grants over `public_keys` rows of kind deploy (0017). */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { AlreadyExists } from "@kiln/domain/errors"
import { offsetOf } from "@kiln/domain/Paging"
import type { DeployKey } from "@kiln/domain/repo/DeployKey"
import { DeployKeyStore } from "@kiln/domain/repo/DeployKeyStore"
import { int, totalOf } from "./Rows.ts"

interface DeployKeyRow {
  readonly id: unknown
  readonly key_id: unknown
  readonly repository_id: unknown
  readonly title: string
  readonly content: string
  readonly fingerprint: string
  readonly read_only: boolean
  readonly created_at: unknown
}

const toDeployKey = (row: DeployKeyRow): DeployKey => ({
  id: int(row.id),
  keyId: int(row.key_id),
  repositoryId: int(row.repository_id),
  title: row.title,
  content: row.content,
  fingerprint: row.fingerprint,
  readOnly: row.read_only,
  createdAt: int(row.created_at)
})

/** Forgejo's texts (routers/api/v1/repo/key.go HandleAddKeyError). */
const usedByAccount = "Key content has been used as non-deploy key"
const alreadyAdded = "This key has already been added to this repository"
const titleUsed = "A key with the same name already exists"

export const layer = Layer.effect(
  DeployKeyStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql`d.id, d.key_id, d.repository_id, d.title, k.content, k.fingerprint, d.read_only, d.created_at`
    const joined = sql`deploy_keys d JOIN public_keys k ON k.id = d.key_id`

    const insertKey = (key: Omit<DeployKey, "id" | "keyId">) =>
      Effect.gen(function*() {
        const existing = yield* sql<{ id: unknown; kind: string }>`
          SELECT id, kind FROM public_keys WHERE fingerprint = ${key.fingerprint} OR content = ${key.content}
          ORDER BY id LIMIT 1 FOR UPDATE`
        const found = existing[0]
        if (found !== undefined) {
          if (found.kind !== "deploy") return yield* new AlreadyExists({ message: usedByAccount })
          return int(found.id)
        }
        const inserted = yield* sql<{ id: unknown }>`INSERT INTO public_keys ${
          sql.insert({
            owner_id: null,
            kind: "deploy",
            title: key.title,
            content: key.content,
            fingerprint: key.fingerprint,
            read_only: key.readOnly,
            created_at: key.createdAt,
            updated_at: key.createdAt
          })
        } RETURNING id`
        return int(inserted[0]?.id)
      })

    const insert = (key: Omit<DeployKey, "id" | "keyId">) =>
      sql.withTransaction(Effect.gen(function*() {
        const keyId = yield* insertKey(key)
        const clash = yield* sql<{ title: string; key_id: unknown }>`
          SELECT title, key_id FROM deploy_keys
          WHERE repository_id = ${key.repositoryId} AND (key_id = ${keyId} OR title = ${key.title})`
        if (clash.some((row) => int(row.key_id) === keyId)) return yield* new AlreadyExists({ message: alreadyAdded })
        if (clash.length > 0) return yield* new AlreadyExists({ message: titleUsed })
        const rows = yield* sql<{ id: unknown }>`INSERT INTO deploy_keys ${
          sql.insert({
            key_id: keyId,
            repository_id: key.repositoryId,
            title: key.title,
            read_only: key.readOnly,
            created_at: key.createdAt
          })
        } RETURNING id`
        return { ...key, id: int(rows[0]?.id), keyId } satisfies DeployKey
      })).pipe(
        Effect.catchTag("SqlError", (error) =>
          // A concurrent insert of the same key or title: the same answers as when checked above.
          error.reason._tag === "UniqueViolation"
            ? Effect.fail(new AlreadyExists({
              message: error.reason.constraint.includes("title")
                ? titleUsed
                : error.reason.constraint.includes("deploy_keys")
                ? alreadyAdded
                : usedByAccount
            }))
            : Effect.die(error))
      )

    return DeployKeyStore.of({
      insert,
      findById: (id) =>
        sql<DeployKeyRow>`SELECT ${columns} FROM ${joined} WHERE d.id = ${id}`.pipe(
          Effect.map((rows) => rows.length === 0 ? Option.none() : Option.some(toDeployKey(rows[0] as DeployKeyRow))),
          Effect.orDie
        ),
      remove: (id) => sql`DELETE FROM deploy_keys WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      list: (query) => {
        const where = sql`d.repository_id = ${query.repositoryId}
          AND ${query.keyId === undefined ? sql`TRUE` : sql`d.key_id = ${query.keyId}`}
          AND ${query.fingerprint === undefined ? sql`TRUE` : sql`k.fingerprint = ${query.fingerprint}`}`
        return Effect.all([
          sql<DeployKeyRow>`SELECT ${columns} FROM ${joined} WHERE ${where} ORDER BY d.id ASC
            LIMIT ${query.page.limit} OFFSET ${offsetOf(query.page)}`,
          sql<{ total: unknown }>`SELECT count(*) AS total FROM ${joined} WHERE ${where}`
        ]).pipe(Effect.map(([rows, counted]) => ({ items: rows.map(toDeployKey), total: totalOf(counted) })), Effect.orDie)
      },
      grantsOf: (keyId) =>
        sql<DeployKeyRow>`SELECT ${columns} FROM ${joined} WHERE d.key_id = ${keyId} ORDER BY d.id`.pipe(
          Effect.map((rows) => rows.map(toDeployKey)),
          Effect.orDie
        )
    })
  })
)
