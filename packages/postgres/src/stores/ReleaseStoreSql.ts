/**
 * ReleaseStore on Postgres (migration 0006): releases and their attachments. Tag names are unique
 * per repository through `lower_tag_name`; a unique violation is the domain's AlreadyExists.
 * Triggers of migration 0007 keep `repositories.attachments_size` in step with every attachment
 * written or deleted here (or by a cascade).
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { AlreadyExists } from "@kiln/domain/errors"
import { offsetOf } from "@kiln/domain/Paging"
import type { Attachment, Release, ReleaseChanges } from "@kiln/domain/release/Release"
import { ReleaseStore } from "@kiln/domain/release/ReleaseStore"
import type { User } from "@kiln/domain/user/User"
import { int, totalOf } from "./Rows.ts"
import { toUser, USER_COLUMNS, type UserRow } from "./UserStoreSql.ts"

interface ReleaseRow {
  readonly id: unknown
  readonly repo_id: unknown
  readonly publisher_id: unknown
  readonly tag_name: string
  readonly target: string
  readonly title: string
  readonly note: string
  readonly sha1: string
  readonly is_draft: boolean
  readonly is_prerelease: boolean
  readonly hide_archive_links: boolean
  readonly created_at: unknown
}

interface AttachmentRow {
  readonly id: unknown
  readonly uuid: string
  readonly repo_id: unknown
  readonly release_id: unknown
  readonly uploader_id: unknown
  readonly name: string
  readonly size: unknown
  readonly sha256: string
  readonly download_count: unknown
  readonly external_url: string
  readonly created_at: unknown
}

const RELEASE_COLUMNS = `id, repo_id, publisher_id, tag_name, target, title, note, sha1, is_draft, is_prerelease,
  hide_archive_links, created_at`
const ATTACHMENT_COLUMNS = `id, uuid::text AS uuid, repo_id, release_id, uploader_id, name, size, sha256, download_count,
  external_url, created_at`

export const toRelease = (row: ReleaseRow): Release => ({
  id: int(row.id),
  repoId: int(row.repo_id),
  publisherId: int(row.publisher_id),
  tagName: row.tag_name,
  target: row.target,
  title: row.title,
  note: row.note,
  sha1: row.sha1,
  isDraft: row.is_draft,
  isPrerelease: row.is_prerelease,
  hideArchiveLinks: row.hide_archive_links,
  createdAt: int(row.created_at)
})

export const toAttachment = (row: AttachmentRow): Attachment => ({
  id: int(row.id),
  uuid: row.uuid,
  repoId: int(row.repo_id),
  releaseId: int(row.release_id),
  uploaderId: int(row.uploader_id),
  name: row.name,
  size: int(row.size),
  sha256: row.sha256,
  downloadCount: int(row.download_count),
  externalUrl: row.external_url,
  createdAt: int(row.created_at)
})

const first = <Row, A>(rows: ReadonlyArray<Row>, map: (row: Row) => A): Option.Option<A> => {
  const row = rows[0]
  return row === undefined ? Option.none() : Option.some(map(row))
}

const isUuid = (text: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)

export const layer = Layer.effect(
  ReleaseStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const releaseColumns = sql.literal(RELEASE_COLUMNS)
    const attachmentColumns = sql.literal(ATTACHMENT_COLUMNS)
    const userColumns = sql.literal(USER_COLUMNS)

    const tagTaken = (tagName: string) => (error: SqlError.SqlError) =>
      error.reason._tag === "UniqueViolation"
        ? Effect.fail(new AlreadyExists({ message: `release tag already exist [tag_name: ${tagName}]` }))
        : Effect.die(error)

    const findRelease = (filter: Statement.Fragment) =>
      Effect.map(sql<ReleaseRow>`SELECT ${releaseColumns} FROM releases WHERE ${filter}`, (rows) => first(rows, toRelease))

    return ReleaseStore.of({
      insert: (release) =>
        sql<ReleaseRow>`INSERT INTO releases ${sql.insert({
          repo_id: release.repoId,
          publisher_id: release.publisherId,
          tag_name: release.tagName,
          lower_tag_name: release.tagName.toLowerCase(),
          target: release.target,
          title: release.title,
          note: release.note,
          sha1: release.sha1,
          is_draft: release.isDraft,
          is_prerelease: release.isPrerelease,
          hide_archive_links: release.hideArchiveLinks,
          created_at: release.createdAt
        })} RETURNING ${releaseColumns}`.pipe(
          Effect.map((rows) => rows.map(toRelease)),
          Effect.flatMap(([row]) => row === undefined ? Effect.die(new Error("INSERT returned no row")) : Effect.succeed(row)),
          Effect.catchTag("SqlError", tagTaken(release.tagName))
        ),

      find: (repoId, id) => Effect.orDie(findRelease(sql`repo_id = ${repoId} AND id = ${id}`)),

      findByTag: (repoId, tagName) =>
        Effect.orDie(findRelease(sql`repo_id = ${repoId} AND lower_tag_name = ${tagName.toLowerCase()}`)),

      update: (id, changes: ReleaseChanges) => {
        const columns: Record<string, string | number | boolean> = {}
        if (changes.tagName !== undefined) {
          columns["tag_name"] = changes.tagName
          columns["lower_tag_name"] = changes.tagName.toLowerCase()
        }
        if (changes.target !== undefined) columns["target"] = changes.target
        if (changes.title !== undefined) columns["title"] = changes.title
        if (changes.note !== undefined) columns["note"] = changes.note
        if (changes.sha1 !== undefined) columns["sha1"] = changes.sha1
        if (changes.isDraft !== undefined) columns["is_draft"] = changes.isDraft
        if (changes.isPrerelease !== undefined) columns["is_prerelease"] = changes.isPrerelease
        if (changes.hideArchiveLinks !== undefined) columns["hide_archive_links"] = changes.hideArchiveLinks
        if (changes.createdAt !== undefined) columns["created_at"] = changes.createdAt
        const statement = Object.keys(columns).length === 0
          ? sql<ReleaseRow>`SELECT ${releaseColumns} FROM releases WHERE id = ${id}`
          : sql<ReleaseRow>`UPDATE releases SET ${sql.update(columns)} WHERE id = ${id} RETURNING ${releaseColumns}`
        return statement.pipe(
          Effect.flatMap(([row]) => row === undefined ? Effect.die(new Error(`release ${id} vanished`)) : Effect.succeed(toRelease(row))),
          Effect.catchTag("SqlError", tagTaken(changes.tagName ?? ""))
        )
      },

      remove: (id) =>
        sql.withTransaction(Effect.gen(function*() {
          const attachments = yield* sql<AttachmentRow>`DELETE FROM attachments WHERE release_id = ${id}
            RETURNING ${attachmentColumns}`
          yield* sql`DELETE FROM releases WHERE id = ${id}`
          return attachments.map(toAttachment)
        })).pipe(Effect.orDie),

      list: (repoId, filter, page) =>
        Effect.gen(function*() {
          const conditions = [sql`repo_id = ${repoId}`]
          if (!filter.includeDrafts) conditions.push(sql`NOT is_draft`)
          if (filter.isDraft !== undefined) conditions.push(sql`is_draft = ${filter.isDraft}`)
          if (filter.isPrerelease !== undefined) conditions.push(sql`is_prerelease = ${filter.isPrerelease}`)
          if (filter.keyword !== "") {
            const pattern = `%${filter.keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
            conditions.push(sql`(lower_tag_name LIKE ${pattern} OR lower(title) LIKE ${pattern} OR lower(note) LIKE ${pattern})`)
          }
          const where = sql.and(conditions)
          const rows = yield* sql<ReleaseRow & { total: unknown }>`SELECT ${releaseColumns}, count(*) OVER () AS total
            FROM releases WHERE ${where}
            ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${offsetOf(page)}`
          const total = rows.length > 0 ? totalOf(rows)
            : totalOf(yield* sql<{ total: unknown }>`SELECT count(*) AS total FROM releases WHERE ${where}`)
          return { items: rows.map(toRelease), total }
        }).pipe(Effect.orDie),

      details: (releases) =>
        Effect.gen(function*() {
          if (releases.length === 0) return []
          const ids = releases.map((release) => release.id)
          const publisherIds = [...new Set(releases.map((release) => release.publisherId))]
          const users = yield* sql<UserRow>`SELECT ${userColumns} FROM users WHERE id = ANY(${publisherIds}::bigint[])`
          const byId = new Map<number, User>(users.map((row) => [int(row.id), toUser(row)]))
          const attachments = yield* sql<AttachmentRow>`SELECT ${attachmentColumns} FROM attachments
            WHERE release_id = ANY(${ids}::bigint[]) ORDER BY release_id, name, id`
          const byRelease = new Map<number, Array<Attachment>>()
          for (const row of attachments) {
            const attachment = toAttachment(row)
            const list = byRelease.get(attachment.releaseId) ?? []
            list.push(attachment)
            byRelease.set(attachment.releaseId, list)
          }
          return releases.map((release) => ({
            release,
            publisher: byId.get(release.publisherId),
            attachments: byRelease.get(release.id) ?? []
          }))
        }).pipe(Effect.orDie),

      insertAttachment: (attachment) =>
        sql<AttachmentRow>`INSERT INTO attachments ${sql.insert({
          repo_id: attachment.repoId,
          release_id: attachment.releaseId,
          uploader_id: attachment.uploaderId,
          name: attachment.name,
          size: attachment.size,
          sha256: attachment.sha256,
          external_url: attachment.externalUrl,
          created_at: attachment.createdAt
        })} RETURNING ${attachmentColumns}`.pipe(
          Effect.flatMap(([row]) => row === undefined ? Effect.die(new Error("INSERT returned no row")) : Effect.succeed(toAttachment(row))),
          Effect.orDie
        ),

      findAttachment: (id) =>
        Effect.orDie(Effect.map(sql<AttachmentRow>`SELECT ${attachmentColumns} FROM attachments WHERE id = ${id}`, (rows) =>
          first(rows, toAttachment))),

      findAttachmentByUuid: (uuid) =>
        isUuid(uuid)
          ? Effect.orDie(Effect.map(
            sql<AttachmentRow>`SELECT ${attachmentColumns} FROM attachments WHERE uuid = ${uuid.toLowerCase()}::uuid`,
            (rows) => first(rows, toAttachment)
          ))
          : Effect.succeed(Option.none()),

      findAttachmentsByName: (releaseId, name) =>
        Effect.orDie(Effect.map(
          sql<AttachmentRow>`SELECT ${attachmentColumns} FROM attachments WHERE release_id = ${releaseId} AND name = ${name}
            ORDER BY id`,
          (rows) => rows.map(toAttachment)
        )),

      updateAttachment: (id, changes) =>
        sql<AttachmentRow>`UPDATE attachments SET name = ${changes.name}, external_url = ${changes.externalUrl}
          WHERE id = ${id} RETURNING ${attachmentColumns}`.pipe(
          Effect.flatMap(([row]) => row === undefined ? Effect.die(new Error(`attachment ${id} vanished`)) : Effect.succeed(toAttachment(row))),
          Effect.orDie
        ),

      removeAttachment: (id) => Effect.orDie(Effect.asVoid(sql`DELETE FROM attachments WHERE id = ${id}`)),

      storedAttachmentsOf: (repoId) =>
        sql<{ uuid: string }>`SELECT uuid FROM attachments WHERE repo_id = ${repoId} AND external_url = ''`.pipe(
          Effect.map((rows) => rows.map((row) => String(row.uuid))),
          Effect.orDie
        ),

      countDownload: (id) => Effect.orDie(Effect.asVoid(sql`UPDATE attachments SET download_count = download_count + 1 WHERE id = ${id}`))
    })
  })
)
