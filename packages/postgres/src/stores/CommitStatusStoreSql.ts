/**
 * CommitStatusStore on Postgres (migrations 0005, 0021). Each status takes the next index of its
 * (repository, commit): computed in the insert itself and retried when a concurrent insert took the
 * same number (the unique constraint decides). The latest status of each context is found by the
 * context's hash, never by its text, which may be megabytes long.
 */
import { Effect, Layer } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import type { CommitStatus } from "@kiln/domain/git/CommitStatus"
import { type CommitStatusSort, CommitStatusStore } from "@kiln/domain/git/CommitStatusStore"
import { offsetOf } from "@kiln/domain/Paging"
import { int } from "./Rows.ts"

interface StatusRow {
  readonly id: unknown
  readonly repo_id: unknown
  readonly sha: string
  readonly index: unknown
  readonly state: string
  readonly target_url: string
  readonly description: string
  readonly context: string
  readonly creator_id: unknown
  readonly created_at: unknown
}

const COLUMNS = "id, repo_id, sha, index, state, target_url, description, context, creator_id, created_at"

const toStatus = (row: StatusRow): CommitStatus => ({
  id: int(row.id),
  repositoryId: int(row.repo_id),
  sha: row.sha,
  index: int(row.index),
  state: row.state,
  targetUrl: row.target_url,
  description: row.description,
  context: row.context,
  creatorId: int(row.creator_id),
  createdAt: int(row.created_at)
})

/** Forgejo's `sortCommitStatusesSession`, with the index breaking ties within a second. */
const ORDER: Record<CommitStatusSort, string> = {
  newest: "created_at DESC, index DESC",
  oldest: "created_at ASC, index ASC",
  recentupdate: "created_at DESC, index DESC",
  leastupdate: "created_at ASC, index ASC",
  leastindex: "index DESC",
  highestindex: "index ASC"
}

export const layer = Layer.effect(
  CommitStatusStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const insertOnce = (status: Omit<CommitStatus, "id" | "index">) =>
      sql<StatusRow>`INSERT INTO commit_statuses
          (repo_id, sha, index, state, target_url, description, context, context_hash, creator_id, created_at)
        SELECT ${status.repositoryId}, ${status.sha}, coalesce(max(index), 0) + 1, ${status.state}, ${status.targetUrl},
          ${status.description}, ${status.context}, encode(sha256(convert_to(${status.context}, 'UTF8')), 'hex'),
          ${status.creatorId}, ${status.createdAt}
        FROM commit_statuses WHERE repo_id = ${status.repositoryId} AND sha = ${status.sha}
        RETURNING ${columns}`

    const filtered = (repositoryId: number, sha: string, state: string | undefined): Statement.Fragment =>
      state === undefined
        ? sql`repo_id = ${repositoryId} AND sha = ${sha}`
        : sql`repo_id = ${repositoryId} AND sha = ${sha} AND state = ${state}`

    return CommitStatusStore.of({
      insert: (status) =>
        insertOnce(status).pipe(
          Effect.retry({ times: 20, while: (error) => error.reason._tag === "UniqueViolation" }),
          Effect.map((rows) => rows.map(toStatus)),
          Effect.flatMap((statuses) => {
            const stored = statuses[0]
            return stored === undefined ? Effect.die(new Error("commit status insert returned no row")) : Effect.succeed(stored)
          }),
          Effect.orDie
        ),
      list: (repositoryId, sha, query) =>
        Effect.gen(function*() {
          const where = filtered(repositoryId, sha, query.state)
          const rows = yield* sql<StatusRow>`SELECT ${columns} FROM commit_statuses WHERE ${where}
            ORDER BY ${sql.literal(ORDER[query.sort])} LIMIT ${query.page.limit} OFFSET ${offsetOf(query.page)}`
          const [count] = yield* sql<{ total: unknown }>`SELECT count(*) AS total FROM commit_statuses WHERE ${where}`
          return { items: rows.map(toStatus), total: int(count?.total ?? 0) }
        }).pipe(Effect.orDie),
      latest: (repositoryId, sha, page) =>
        Effect.gen(function*() {
          const rows = yield* sql<StatusRow>`SELECT ${columns} FROM commit_statuses
            WHERE repo_id = ${repositoryId} AND sha = ${sha} AND index IN (
              SELECT max(index) FROM commit_statuses WHERE repo_id = ${repositoryId} AND sha = ${sha}
              GROUP BY context_hash ORDER BY max(index) DESC LIMIT ${page.limit} OFFSET ${offsetOf(page)})
            ORDER BY index`
          const [count] = yield* sql<{ total: unknown }>`SELECT count(DISTINCT context_hash) AS total FROM commit_statuses
            WHERE repo_id = ${repositoryId} AND sha = ${sha}`
          return { items: rows.map(toStatus), total: int(count?.total ?? 0) }
        }).pipe(Effect.orDie)
    })
  })
)
