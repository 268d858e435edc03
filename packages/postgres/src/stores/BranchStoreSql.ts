/** BranchStore on Postgres: the branch table of migration 0005, one row per branch. */
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Branch } from "@kiln/domain/git/Branch"
import { BranchStore } from "@kiln/domain/git/BranchStore"
import { offsetOf } from "@kiln/domain/Paging"
import { CommitVerification } from "@kiln/domain/signing/CommitVerification"
import { int } from "./Rows.ts"

interface BranchRow {
  readonly name: string
  readonly commit_id: string
  readonly commit_message: string
  readonly author_name: string
  readonly author_email: string
  readonly author_time: unknown
  readonly author_offset: unknown
  readonly committer_name: string
  readonly committer_email: string
  readonly commit_time: unknown
  readonly committer_offset: unknown
  readonly verification: unknown
}

const COLUMNS = `name, commit_id, commit_message, author_name, author_email, author_time, author_offset,
  committer_name, committer_email, commit_time, committer_offset, verification`

const decodeVerification = Schema.decodeUnknownSync(CommitVerification)

const toBranch = (row: BranchRow): Branch => ({
  name: row.name,
  commitId: row.commit_id,
  message: row.commit_message,
  author: { name: row.author_name, email: row.author_email, when: { seconds: int(row.author_time), offsetMinutes: int(row.author_offset) } },
  committer: {
    name: row.committer_name,
    email: row.committer_email,
    when: { seconds: int(row.commit_time), offsetMinutes: int(row.committer_offset) }
  },
  // jsonb arrives parsed from the server and as text through some clients.
  verification: decodeVerification(typeof row.verification === "string" ? JSON.parse(row.verification) : row.verification)
})

const toRow = (repositoryId: number, branch: Branch) => ({
  repo_id: repositoryId,
  name: branch.name,
  commit_id: branch.commitId,
  commit_message: branch.message,
  author_name: branch.author.name,
  author_email: branch.author.email,
  author_time: branch.author.when.seconds,
  author_offset: branch.author.when.offsetMinutes,
  committer_name: branch.committer.name,
  committer_email: branch.committer.email,
  commit_time: branch.committer.when.seconds,
  committer_offset: branch.committer.when.offsetMinutes,
  verification: JSON.stringify(branch.verification)
})

export const layer = Layer.effect(
  BranchStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    /** The upsert of `branches`; undefined for none. */
    const upsert = (repositoryId: number, branches: ReadonlyArray<Branch>) => {
      const [first, ...rest] = branches.map((branch) => toRow(repositoryId, branch))
      return first === undefined ? undefined : sql`INSERT INTO branches ${sql.insert([first, ...rest])}
        ON CONFLICT (repo_id, name) DO UPDATE SET commit_id = excluded.commit_id, commit_message = excluded.commit_message,
          author_name = excluded.author_name, author_email = excluded.author_email, author_time = excluded.author_time,
          author_offset = excluded.author_offset, committer_name = excluded.committer_name,
          committer_email = excluded.committer_email, commit_time = excluded.commit_time,
          committer_offset = excluded.committer_offset, verification = excluded.verification`
    }

    const insert = (repositoryId: number, branches: ReadonlyArray<Branch>) => {
      const statement = upsert(repositoryId, branches)
      return statement === undefined ? Effect.void : Effect.asVoid(statement)
    }

    /** Postgres takes at most 65,535 parameters per statement: 13 columns a row. */
    const ROWS_PER_STATEMENT = 1_000

    return BranchStore.of({
      list: (repositoryId, page) =>
        Effect.gen(function*() {
          const rows = yield* sql<BranchRow>`SELECT ${columns} FROM branches WHERE repo_id = ${repositoryId}
            ORDER BY commit_time DESC, name LIMIT ${page.limit} OFFSET ${offsetOf(page)}`
          const [count] = yield* sql<{ total: unknown }>`SELECT count(*) AS total FROM branches WHERE repo_id = ${repositoryId}`
          return { items: rows.map(toBranch), total: int(count?.total ?? 0) }
        }).pipe(Effect.orDie),
      find: (repositoryId, name) =>
        sql<BranchRow>`SELECT ${columns} FROM branches WHERE repo_id = ${repositoryId} AND name = ${name}`.pipe(
          Effect.map((rows) => Option.map(Option.fromUndefinedOr(rows[0]), toBranch)),
          Effect.orDie
        ),
      hasAny: (repositoryId) =>
        sql<{ found: boolean }>`SELECT EXISTS (SELECT 1 FROM branches WHERE repo_id = ${repositoryId}) AS found`.pipe(
          Effect.map((rows) => rows[0]?.found === true),
          Effect.orDie
        ),
      record: (repositoryId, { put, remove }, clearPending) => {
        const removal = remove.length === 0 ? undefined : sql`DELETE FROM branches WHERE repo_id = ${repositoryId} AND ${sql.in("name", remove)}`
        const clearing = clearPending ? sql`DELETE FROM branch_sync_pending WHERE repo_id = ${repositoryId}` : undefined
        if (put.length > ROWS_PER_STATEMENT) {
          return sql.withTransaction(Effect.gen(function*() {
            for (let start = 0; start < put.length; start += ROWS_PER_STATEMENT) {
              yield* insert(repositoryId, put.slice(start, start + ROWS_PER_STATEMENT))
            }
            if (removal !== undefined) yield* removal
            if (clearing !== undefined) yield* clearing
          })).pipe(Effect.orDie)
        }
        // Every change but the last as a data-modifying WITH: one statement, atomic.
        const steps = [upsert(repositoryId, put), removal, clearing].filter((step) => step !== undefined)
        const last = steps.pop()
        if (last === undefined) return Effect.void
        const statement = steps.length === 0 ? last : sql`WITH ${sql.csv(steps.map((step, index) => sql`${sql.literal(`step${index}`)} AS (${step})`))} ${last}`
        return statement.pipe(Effect.asVoid, Effect.orDie)
      },
      replaceAll: (repositoryId, branches) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM branches WHERE repo_id = ${repositoryId}`
          for (let start = 0; start < branches.length; start += ROWS_PER_STATEMENT) {
            yield* insert(repositoryId, branches.slice(start, start + ROWS_PER_STATEMENT))
          }
        })).pipe(Effect.orDie),
      syncState: (repositoryId) =>
        sql<{ has_any: boolean; pending: boolean }>`SELECT
            EXISTS (SELECT 1 FROM branches WHERE repo_id = ${repositoryId}) AS has_any,
            EXISTS (SELECT 1 FROM branch_sync_pending WHERE repo_id = ${repositoryId}) AS pending`.pipe(
          Effect.map(([row]) => ({ hasAny: row?.has_any === true, pending: row?.pending === true })),
          Effect.orDie
        ),
      markPending: (repositoryId) =>
        sql<{ left_behind: boolean; has_any: boolean }>`WITH marked AS (
            INSERT INTO branch_sync_pending (repo_id) VALUES (${repositoryId}) ON CONFLICT (repo_id) DO NOTHING RETURNING repo_id
          )
          SELECT NOT EXISTS (SELECT 1 FROM marked) AS left_behind,
            EXISTS (SELECT 1 FROM branches WHERE repo_id = ${repositoryId}) AS has_any`.pipe(
          Effect.map(([row]) => ({ leftBehind: row?.left_behind === true, hasAny: row?.has_any === true })),
          Effect.orDie
        ),
      clearPending: (repositoryId) =>
        sql`DELETE FROM branch_sync_pending WHERE repo_id = ${repositoryId}`.pipe(Effect.asVoid, Effect.orDie),
      pending: () =>
        sql<{ repo_id: unknown }>`SELECT repo_id FROM branch_sync_pending ORDER BY marked_at`.pipe(
          Effect.map((rows) => rows.map((row) => int(row.repo_id))),
          Effect.orDie
        )
    })
  })
)
