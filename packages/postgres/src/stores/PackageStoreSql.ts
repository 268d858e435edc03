/**
 * PackageStore on Postgres (migration 0006). An upload upserts the package and version, then the
 * blob (locking it: ON CONFLICT DO UPDATE), then inserts the file; a deletion removes the file rows
 * and reports blobs no file refers to any more, deleting their rows (which locks them until the
 * caller's transaction ends). Names and versions match case-insensitively. Triggers of migration
 * 0007 keep the size totals of versions, packages and their counted owner in step with every file
 * written or deleted here (or by a cascade).
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { AlreadyExists, NotFound } from "@kiln/domain/errors"
import { offsetOf } from "@kiln/domain/Paging"
import {
  PACKAGE_FILE_EXISTS_MESSAGE,
  PACKAGE_FILE_NOT_FOUND_MESSAGE,
  PACKAGE_NOT_FOUND_MESSAGE,
  type PackageCoordinates,
  type PackageFile,
  type PackageType
} from "@kiln/domain/package/Package"
import { PackageStore } from "@kiln/domain/package/PackageStore"
import { int, totalOf } from "./Rows.ts"
import { toUser, userColumns, type UserRow } from "./UserStoreSql.ts"

interface FileRow {
  readonly id: unknown
  readonly version_id: unknown
  readonly name: string
  readonly size: unknown
  readonly hash_md5: string
  readonly hash_sha1: string
  readonly hash_sha256: string
  readonly hash_sha512: string
  readonly created_at: unknown
}

const toFile = (row: FileRow): PackageFile => ({
  id: int(row.id),
  versionId: int(row.version_id),
  name: row.name,
  blob: {
    size: int(row.size),
    digests: { md5: row.hash_md5, sha1: row.hash_sha1, sha256: row.hash_sha256, sha512: row.hash_sha512 }
  },
  createdAt: int(row.created_at)
})

const isPackageType = (value: string): value is PackageType => value === "generic"

/** Flattened user columns: the owner as `o_*`, the creator as `c_*` (null when the account is gone). */
const prefixed = (alias: string, prefix: string) =>
  userColumns(alias).split(",").map((column) => {
    const name = column.trim().slice(alias.length + 1)
    return `${alias}.${name} AS ${prefix}${name}`
  }).join(", ")

const unprefixed = (row: Record<string, unknown>, prefix: string): UserRow => {
  const user: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(row)) if (key.startsWith(prefix)) user[key.slice(prefix.length)] = value
  // The row's columns are exactly USER_COLUMNS under the prefix (see `prefixed`).
  return user as unknown as UserRow
}

export const layer = Layer.effect(
  PackageStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const owner = sql.literal(prefixed("o", "o_"))
    const creator = sql.literal(prefixed("c", "c_"))

    /** The version at `at`, locked against concurrent deletion until the transaction ends. */
    const lockedVersion = (at: PackageCoordinates) =>
      Effect.map(
        sql<{ id: unknown; package_id: unknown }>`SELECT v.id, v.package_id FROM package_versions v
          JOIN packages p ON p.id = v.package_id
          WHERE p.owner_id = ${at.ownerId} AND p.type = ${at.type} AND p.lower_name = ${at.name.toLowerCase()}
            AND v.lower_version = ${at.version.toLowerCase()}
          FOR UPDATE OF v`,
        (rows) => rows[0] === undefined ? Option.none() : Option.some({ id: int(rows[0].id), packageId: int(rows[0].package_id) })
      )

    /** Deletes the blobs among `blobIds` that no file refers to; returns their SHA-256. */
    const dropOrphans = (blobIds: ReadonlyArray<number>) =>
      blobIds.length === 0 ? Effect.succeed([]) : Effect.map(
        sql<{ hash_sha256: string }>`DELETE FROM package_blobs b WHERE b.id = ANY(${blobIds}::bigint[])
          AND NOT EXISTS (SELECT 1 FROM package_files f WHERE f.blob_id = b.id)
          RETURNING b.hash_sha256`,
        (rows) => rows.map((row) => row.hash_sha256)
      )

    /** Drops the version when it has no file, then the package when it has no version. */
    const dropEmpty = (version: { readonly id: number; readonly packageId: number }) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM package_versions v WHERE v.id = ${version.id}
          AND NOT EXISTS (SELECT 1 FROM package_files f WHERE f.version_id = v.id)`
        yield* sql`DELETE FROM packages p WHERE p.id = ${version.packageId}
          AND NOT EXISTS (SELECT 1 FROM package_versions v WHERE v.package_id = p.id)`
      })

    /** Database failures are defects: the port promises only its domain errors. */
    const sqlDefect = (error: SqlError.SqlError) => Effect.die(error)

    return PackageStore.of({
      addFile: (file) =>
        (sql.withTransaction(Effect.gen(function*() {
          const [pkg] = yield* sql<{ id: unknown }>`INSERT INTO packages (owner_id, type, name, lower_name)
            VALUES (${file.ownerId}, ${file.type}, ${file.name}, ${file.name.toLowerCase()})
            ON CONFLICT (owner_id, type, lower_name) DO UPDATE SET lower_name = EXCLUDED.lower_name
            RETURNING id`
          const [version] = yield* sql<{ id: unknown }>`INSERT INTO package_versions
              (package_id, creator_id, version, lower_version, created_at)
            VALUES (${int(pkg?.id)}, ${file.creatorId}, ${file.version}, ${file.version.toLowerCase()}, ${file.createdAt})
            ON CONFLICT (package_id, lower_version) DO UPDATE SET lower_version = EXCLUDED.lower_version
            RETURNING id`
          const { digests, size } = file.blob
          // DO UPDATE (not NOTHING): the blob row is returned and locked, so no deletion can take it meanwhile.
          const [blob] = yield* sql<{ id: unknown; inserted: boolean }>`INSERT INTO package_blobs
              (size, hash_md5, hash_sha1, hash_sha256, hash_sha512, created_at)
            VALUES (${size}, ${digests.md5}, ${digests.sha1}, ${digests.sha256}, ${digests.sha512}, ${file.createdAt})
            ON CONFLICT (hash_sha256) DO UPDATE SET hash_sha256 = EXCLUDED.hash_sha256
            RETURNING id, (xmax = 0) AS inserted`
          const inserted = yield* sql<FileRow>`INSERT INTO package_files (version_id, blob_id, name, lower_name, size, created_at)
            VALUES (${int(version?.id)}, ${int(blob?.id)}, ${file.fileName}, ${file.fileName.toLowerCase()}, ${size}, ${file.createdAt})
            ON CONFLICT (version_id, lower_name) DO NOTHING
            RETURNING id, version_id, name, size, created_at,
              ${digests.md5}::text AS hash_md5, ${digests.sha1}::text AS hash_sha1,
              ${digests.sha256}::text AS hash_sha256, ${digests.sha512}::text AS hash_sha512`
          const row = inserted[0]
          if (row === undefined) return yield* new AlreadyExists({ message: PACKAGE_FILE_EXISTS_MESSAGE })
          return { file: toFile(row), newBlob: blob?.inserted === true }
        }))).pipe(Effect.catchTag("SqlError", sqlDefect)),

      findFile: (at, fileName) =>
        (Effect.map(
          sql<FileRow>`SELECT f.id, f.version_id, f.name, f.size, f.created_at,
              b.hash_md5, b.hash_sha1, b.hash_sha256, b.hash_sha512
            FROM packages p
            JOIN package_versions v ON v.package_id = p.id
            JOIN package_files f ON f.version_id = v.id
            JOIN package_blobs b ON b.id = f.blob_id
            WHERE p.owner_id = ${at.ownerId} AND p.type = ${at.type} AND p.lower_name = ${at.name.toLowerCase()}
              AND v.lower_version = ${at.version.toLowerCase()} AND f.lower_name = ${fileName.toLowerCase()}`,
          (rows) => rows[0] === undefined ? Option.none() : Option.some(toFile(rows[0]))
        )).pipe(Effect.catchTag("SqlError", sqlDefect)),

      removeFile: (at, fileName) =>
        (sql.withTransaction(Effect.gen(function*() {
          const version = yield* lockedVersion(at)
          if (Option.isNone(version)) return yield* new NotFound({ message: PACKAGE_NOT_FOUND_MESSAGE })
          const [removed] = yield* sql<{ blob_id: unknown }>`DELETE FROM package_files
            WHERE version_id = ${version.value.id} AND lower_name = ${fileName.toLowerCase()} RETURNING blob_id`
          if (removed === undefined) return yield* new NotFound({ message: PACKAGE_FILE_NOT_FOUND_MESSAGE })
          yield* dropEmpty(version.value)
          const [orphan] = yield* dropOrphans([int(removed.blob_id)])
          return Option.fromUndefinedOr(orphan)
        }))).pipe(Effect.catchTag("SqlError", sqlDefect)),

      removeVersion: (at) =>
        (sql.withTransaction(Effect.gen(function*() {
          const version = yield* lockedVersion(at)
          if (Option.isNone(version)) return yield* new NotFound({ message: PACKAGE_NOT_FOUND_MESSAGE })
          const removed = yield* sql<{ blob_id: unknown }>`DELETE FROM package_files WHERE version_id = ${version.value.id}
            RETURNING blob_id`
          yield* dropEmpty(version.value)
          return yield* dropOrphans([...new Set(removed.map((row) => int(row.blob_id)))])
        }))).pipe(Effect.catchTag("SqlError", sqlDefect)),

      removeAllOf: (ownerId) =>
        (sql.withTransaction(Effect.gen(function*() {
          const removed = yield* sql<{ blob_id: unknown }>`DELETE FROM package_files f
            USING package_versions v, packages p
            WHERE f.version_id = v.id AND v.package_id = p.id AND p.owner_id = ${ownerId}
            RETURNING f.blob_id`
          // Versions go with their packages (ON DELETE CASCADE).
          yield* sql`DELETE FROM packages WHERE owner_id = ${ownerId}`
          return yield* dropOrphans([...new Set(removed.map((row) => int(row.blob_id)))])
        }))).pipe(Effect.catchTag("SqlError", sqlDefect)),

      ownsPackages: (ownerId) =>
        sql<{ owns: boolean }>`SELECT EXISTS (SELECT 1 FROM package_versions v
            JOIN packages p ON p.id = v.package_id WHERE p.owner_id = ${ownerId}) AS owns`.pipe(
          Effect.map((rows) => rows[0]?.owns === true),
          Effect.catchTag("SqlError", sqlDefect)
        ),

      listVersions: (ownerId, filter, page) =>
        (Effect.gen(function*() {
          const conditions = [sql`p.owner_id = ${ownerId}`]
          if (filter.type !== undefined) conditions.push(sql`p.type = ${filter.type}`)
          if (filter.keyword !== "") {
            const pattern = `%${filter.keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
            conditions.push(sql`p.lower_name LIKE ${pattern}`)
          }
          const where = sql.and(conditions)
          const rows = yield* sql<Record<string, unknown>>`SELECT v.id, p.type, p.name, p.lower_name, v.version,
              v.lower_version, v.created_at, ${owner}, ${creator}, count(*) OVER () AS total
            FROM package_versions v
            JOIN packages p ON p.id = v.package_id
            JOIN users o ON o.id = p.owner_id
            LEFT JOIN users c ON c.id = v.creator_id
            WHERE ${where}
            ORDER BY v.created_at DESC, v.id DESC LIMIT ${page.limit} OFFSET ${offsetOf(page)}`
          const total = rows.length > 0 ? totalOf(rows) : totalOf(yield* sql<{ total: unknown }>`SELECT count(*) AS total
            FROM package_versions v JOIN packages p ON p.id = v.package_id WHERE ${where}`)
          const items = rows.flatMap((row) => {
            const type = String(row["type"])
            if (!isPackageType(type)) return []
            return [{
              id: int(row["id"]),
              owner: toUser(unprefixed(row, "o_")),
              creator: row["c_id"] === null ? undefined : toUser(unprefixed(row, "c_")),
              type,
              name: String(row["name"]),
              lowerName: String(row["lower_name"]),
              version: String(row["version"]),
              lowerVersion: String(row["lower_version"]),
              createdAt: int(row["created_at"])
            }]
          })
          return { items, total }
        })).pipe(Effect.catchTag("SqlError", sqlDefect)),

      countDownload: (versionId) =>
        (Effect.asVoid(sql`UPDATE package_versions SET download_count = download_count + 1 WHERE id = ${versionId}`)).pipe(Effect.catchTag("SqlError", sqlDefect))
    })
  })
)
