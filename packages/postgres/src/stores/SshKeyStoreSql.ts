/** SshKeyStore on Postgres: `public_keys` of both kinds. */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { type StoredSshKey, SshKeyStore } from "@kiln/domain/ssh/SshKeyStore"
import { int } from "./Rows.ts"

interface KeyRow {
  readonly id: unknown
  readonly kind: string
  readonly owner_id: unknown
  readonly title: string
  readonly content: string
  readonly fingerprint: string
}

const toKey = (row: KeyRow): StoredSshKey => ({
  id: int(row.id),
  kind: row.kind === "deploy" ? "deploy" : "user",
  ownerId: row.owner_id === null || row.owner_id === undefined ? undefined : int(row.owner_id),
  title: row.title,
  content: row.content,
  fingerprint: row.fingerprint
})

export const layer = Layer.effect(
  SshKeyStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const first = (rows: ReadonlyArray<KeyRow>) => rows.length === 0 ? Option.none() : Option.some(toKey(rows[0] as KeyRow))
    return SshKeyStore.of({
      findByFingerprint: (fingerprint) =>
        sql<KeyRow>`SELECT id, kind, owner_id, title, content, fingerprint FROM public_keys
          WHERE fingerprint = ${fingerprint} ORDER BY id LIMIT 1`.pipe(Effect.map(first), Effect.orDie),
      findById: (id) =>
        sql<KeyRow>`SELECT id, kind, owner_id, title, content, fingerprint FROM public_keys WHERE id = ${id}`.pipe(
          Effect.map(first),
          Effect.orDie
        )
    })
  })
)
