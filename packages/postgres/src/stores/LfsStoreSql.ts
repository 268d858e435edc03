/**
 * LfsStore on Postgres (migration 0018). References count toward their repository's `lfs_size`
 * by trigger, in the transaction of the write. An object's row is the point where uploads and the
 * collection meet: `claim` and `addReference` lock it (KEY SHARE or stronger), the collection
 * locks it FOR UPDATE SKIP LOCKED, so a reference is never added to an object being removed.
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { AlreadyExists, NotFound } from "@kiln/domain/errors"
import type { LfsLock } from "@kiln/domain/lfs/LfsLock"
import { LfsStore, type StoredLfsToken } from "@kiln/domain/lfs/LfsStore"
import { int, text } from "./Rows.ts"
import { userAt, userColumns } from "./UserStoreSql.ts"

const LOCK_COLUMNS = ["id", "repo_id", "path", "created_at"] as const

const lockAt = (values: ReadonlyArray<unknown>): LfsLock => ({
  id: int(values[0]),
  repositoryId: int(values[1]),
  path: text(values[2]),
  createdAt: int(values[3]),
  owner: userAt(values, LOCK_COLUMNS.length)
})

export const layer = Layer.effect(
  LfsStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const lockSelect = sql.literal(`SELECT ${LOCK_COLUMNS.map((column) => `l.${column}`).join(", ")}, ${userColumns("u")}
      FROM lfs_locks l JOIN users u ON u.id = l.owner_id`)

    return LfsStore.of({
      find: (oid) =>
        sql<{ oid: string; size: unknown }>`SELECT oid, size FROM lfs_objects WHERE oid = ${oid}`.pipe(
          Effect.map(([row]) => row === undefined ? Option.none() : Option.some({ oid: row.oid, size: int(row.size) })),
          Effect.orDie
        ),

      referenced: (repositoryId, oid) =>
        sql<{ size: unknown }>`SELECT size FROM lfs_references WHERE repo_id = ${repositoryId} AND oid = ${oid}`.pipe(
          Effect.map(([row]) => row === undefined ? Option.none() : Option.some({ oid, size: int(row.size) })),
          Effect.orDie
        ),

      referencedAmong: (repositoryId, oids) =>
        oids.length === 0 ? Effect.succeed(new Map()) : sql<{ oid: string; size: unknown }>`SELECT oid, size FROM lfs_references
          WHERE repo_id = ${repositoryId} AND oid = ANY(${oids}::text[])`.pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.oid, int(row.size)]))),
          Effect.orDie
        ),

      storedAmong: (oids) =>
        oids.length === 0 ? Effect.succeed(new Map()) : sql<{ oid: string; size: unknown }>`SELECT oid, size FROM lfs_objects
          WHERE oid = ANY(${oids}::text[])`.pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.oid, int(row.size)]))),
          Effect.orDie
        ),

      referencingRepositories: (oid, limit) =>
        sql<{ repo_id: unknown }>`SELECT repo_id FROM lfs_references WHERE oid = ${oid} ORDER BY created_at, repo_id LIMIT ${limit}`.pipe(
          Effect.map((rows) => rows.map((row) => int(row.repo_id))),
          Effect.orDie
        ),

      claim: (object, now) =>
        sql`INSERT INTO lfs_objects (oid, size, created_at) VALUES (${object.oid}, ${object.size}, ${now})
          ON CONFLICT (oid) DO UPDATE SET unreferenced_since = NULL`.pipe(Effect.asVoid, Effect.orDie),

      addReference: (repositoryId, object, now) =>
        sql.withTransaction(Effect.gen(function*() {
          // The object's row, held until the transaction ends: the collection skips it meanwhile.
          const found = yield* sql<{ size: unknown }>`SELECT size FROM lfs_objects WHERE oid = ${object.oid} FOR NO KEY UPDATE`
          const stored = found[0]
          if (stored === undefined) return yield* new NotFound({ message: `LFS object ${object.oid} is not stored` })
          yield* sql`UPDATE lfs_objects SET unreferenced_since = NULL WHERE oid = ${object.oid} AND unreferenced_since IS NOT NULL`
          const inserted = yield* sql`INSERT INTO lfs_references (repo_id, oid, size, created_at)
            VALUES (${repositoryId}, ${object.oid}, ${int(stored.size)}, ${now}) ON CONFLICT DO NOTHING RETURNING oid`
          return inserted.length > 0
        })).pipe(Effect.catchTag("SqlError", Effect.die)),

      removeReference: (repositoryId, oid) =>
        sql`DELETE FROM lfs_references WHERE repo_id = ${repositoryId} AND oid = ${oid}`.pipe(Effect.asVoid, Effect.orDie),

      beginUpload: (id, oid, now) =>
        sql`INSERT INTO lfs_uploads (id, oid, started_at) VALUES (${id}, ${oid}, ${now})`.pipe(Effect.asVoid, Effect.orDie),
      endUpload: (id) => sql`DELETE FROM lfs_uploads WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      lockCollectable: ({ before, limit, now, uploadsAfter }) =>
        Effect.gen(function*() {
          yield* sql`UPDATE lfs_objects o SET unreferenced_since = ${now}
            WHERE unreferenced_since IS NULL AND NOT EXISTS (SELECT 1 FROM lfs_references r WHERE r.oid = o.oid)`
          const rows = yield* sql<{ oid: string; size: unknown }>`SELECT oid, size FROM lfs_objects o
            WHERE unreferenced_since <= ${before}
              AND NOT EXISTS (SELECT 1 FROM lfs_references r WHERE r.oid = o.oid)
              AND NOT EXISTS (SELECT 1 FROM lfs_uploads u WHERE u.oid = o.oid AND u.started_at > ${uploadsAfter})
            ORDER BY oid LIMIT ${limit} FOR UPDATE SKIP LOCKED`
          return rows.map((row) => ({ oid: row.oid, size: int(row.size) }))
        }).pipe(Effect.orDie),

      removeObjects: (oids) =>
        oids.length === 0 ? Effect.void : sql`DELETE FROM lfs_objects WHERE oid = ANY(${oids}::text[])`.pipe(Effect.asVoid, Effect.orDie),

      forgetUploads: (before) => sql`DELETE FROM lfs_uploads WHERE started_at < ${before}`.pipe(Effect.asVoid, Effect.orDie),

      listObjects: (after, limit) =>
        sql<{ oid: string; size: unknown; referenced: boolean }>`SELECT oid, size,
            EXISTS (SELECT 1 FROM lfs_references r WHERE r.oid = o.oid) AS referenced
          FROM lfs_objects o WHERE oid > ${after} ORDER BY oid LIMIT ${limit}`.pipe(
          Effect.map((rows) => rows.map((row) => ({ oid: row.oid, size: int(row.size), referenced: row.referenced === true }))),
          Effect.orDie
        ),

      createLock: (repositoryId, path, ownerId, now) =>
        Effect.gen(function*() {
          const inserted = yield* sql<{ id: unknown }>`INSERT INTO lfs_locks (repo_id, path, owner_id, created_at)
            VALUES (${repositoryId}, ${path}, ${ownerId}, ${now}) ON CONFLICT (repo_id, path) DO NOTHING RETURNING id`
          const id = inserted[0]?.id
          if (id === undefined) return yield* new AlreadyExists({ message: `lock already exists [path: ${path}]` })
          const [values] = yield* sql`${lockSelect} WHERE l.id = ${int(id)}`.values
          if (values === undefined) return yield* Effect.die(new Error("a lock just created is gone"))
          return lockAt(values)
        }).pipe(Effect.catchTag("SqlError", Effect.die)),

      locks: (repositoryId, query) =>
        sql`${lockSelect} WHERE l.repo_id = ${repositoryId}
          ${query.id === undefined ? sql`` : sql`AND l.id = ${query.id}`}
          ${query.path === undefined ? sql`` : sql`AND l.path = ${query.path}`}
          ORDER BY l.id LIMIT ${query.limit} OFFSET ${query.offset}`.values.pipe(
          Effect.map((rows) => rows.map(lockAt)),
          Effect.orDie
        ),

      removeLock: (repositoryId, id) =>
        sql`DELETE FROM lfs_locks WHERE repo_id = ${repositoryId} AND id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      saveToken: (hash, token) =>
        sql`INSERT INTO lfs_tokens (hash, repo_id, user_id, deploy_key_id, operation, expires_at)
          VALUES (${hash}, ${token.repositoryId}, ${token.holder._tag === "User" ? token.holder.userId : null},
            ${token.holder._tag === "DeployKey" ? token.holder.keyId : null}, ${token.operation}, ${token.expiresAt})`.pipe(Effect.asVoid, Effect.orDie),

      findToken: (hash, now) =>
        sql<{ repo_id: unknown; user_id: unknown; deploy_key_id: unknown; operation: string; expires_at: unknown }>`SELECT
            repo_id, user_id, deploy_key_id, operation, expires_at
          FROM lfs_tokens WHERE hash = ${hash} AND expires_at > ${now}`.pipe(
          Effect.map(([row]) =>
            row === undefined ? Option.none<StoredLfsToken>() : Option.some<StoredLfsToken>({
              repositoryId: int(row.repo_id),
              holder: row.user_id === null
                ? { _tag: "DeployKey", keyId: int(row.deploy_key_id) }
                : { _tag: "User", userId: int(row.user_id) },
              operation: row.operation === "upload" ? "upload" : "download",
              expiresAt: int(row.expires_at)
            })),
          Effect.orDie
        ),

      pruneTokens: (now) => sql`DELETE FROM lfs_tokens WHERE expires_at <= ${now}`.pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
