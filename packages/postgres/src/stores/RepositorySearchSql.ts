/**
 * `RepositoryStore.search` as SQL: Forgejo's `SearchRepositoryCondition` and its orders
 * [models/repo/repo_list.go, models/repo/search.go] over `repositories r JOIN users o` (o: the owner).
 *
 * What it costs:
 * - Conditions are shaped so that an index drives the scan: a keyword through the trigram indexes
 *   (a bound parameter: a custom plan sees the pattern); a user's own and collaborative
 *   repositories through `= ANY (ARRAY(...))` on the owner and primary-key indexes (under OR, an
 *   `IN (subquery)` can only filter, which walks every repository); hidden owners as an anti-join.
 * - The page's LIMIT and OFFSET are written into the text as well: a statement without parameters
 *   (an anonymous keyword search, say) is planned once per connection instead of at every run.
 * - The page is read first. A page that is not full is the last one, and the total follows from
 *   it: rare and absent keywords cost no count.
 * - A full page needs the count of every match, which grows with the matches (a keyword in 10 % of
 *   100,000 repositories reads 10,000 rows). Counts are kept per condition and reused while the
 *   search epoch (migration 0008) is unchanged: every committed change to what a condition reads
 *   moves the epoch in that same commit, and the page reads the epoch in the snapshot of its rows,
 *   so a reused count is exactly what counting in that snapshot would give. A transaction that has
 *   written anything reads no epoch (its own changes move it only at its commit) and counts afresh.
 */
import { Effect, Option } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { offsetOf } from "@kiln/domain/Paging"
import type { RepositorySearch, SearchOrder, SearchVisibility } from "@kiln/domain/repo/RepositorySearch"
import { int } from "./Rows.ts"

const ORDER_COLUMN: Record<SearchOrder["sort"], string> = {
  alpha: "o.lower_name",
  created: "r.created_at",
  updated: "r.updated_at",
  size: "r.size",
  git_size: "r.size",
  lfs_size: "r.lfs_size",
  stars: "r.num_stars",
  forks: "r.num_forks",
  id: "r.id"
}

/**
 * `text` as a LIKE pattern that matches exactly it (`\` is LIKE's default escape character).
 * NUL cannot be in a text value (nor in any name), so it is left out rather than refused by the server.
 */
const literalPattern = (text: string): string => text.replaceAll("\u0000", "").replace(/[\\%_]/g, (c) => `\\${c}`)

/** Counts kept (least recently used first out): one per condition, so per keyword and viewer. */
const COUNTS_KEPT = 1_000

interface KeptCount {
  readonly epoch: string
  readonly total: number
}

export interface SearchRows<Row> {
  readonly rows: ReadonlyArray<Row>
  readonly total: number
}

/**
 * The search of rows made of `columns` (a select list over `r` and `o`), each read by `read` from
 * the row's values (`.values`) at the position where `columns` start; `outsideTransaction` tells
 * whether the rows were read outside a transaction (what UnchangedRows may keep).
 */
export const makeRepositorySearch = <Row>(
  columns: string,
  read: (values: ReadonlyArray<unknown>, from: number, outsideTransaction: boolean) => Row
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const selected = sql.literal(columns)
    const counts = new Map<string, KeptCount>()

    /** The epoch in the statement's snapshot, NULL inside a transaction that has written. */
    const epoch = sql`(SELECT CASE WHEN pg_current_xact_id_if_assigned() IS NULL THEN epoch END FROM repository_search_epoch)`

    /** Repositories `userId` reaches by collaboration or team (Forgejo's `access` table). */
    const reachedBy = (userId: number) =>
      sql`(r.id IN (SELECT c.repo_id FROM collaborations c WHERE c.user_id = ${userId})
        OR r.id IN (SELECT tr.repo_id FROM team_repos tr JOIN team_users tu ON tu.team_id = tr.team_id WHERE tu.user_id = ${userId})
        OR r.owner_id IN (SELECT t.org_id FROM teams t JOIN team_users tu ON tu.team_id = t.id
          WHERE tu.user_id = ${userId} AND t.includes_all_repositories))`

    /**
     * A superset of what `userId` owns or reaches (`r.owner_id = userId OR reachedBy(userId)`),
     * and of the repositories of their organizations, in a form the owner and primary-key indexes
     * serve, so that the exact condition only filters the few rows it yields.
     */
    const nearTo = (userId: number) =>
      sql`(r.owner_id = ANY (ARRAY(SELECT ${userId}::bigint
          UNION ALL SELECT m.org_id FROM org_users m WHERE m.user_id = ${userId}
          UNION ALL SELECT tu.org_id FROM team_users tu WHERE tu.user_id = ${userId}))
        OR r.id = ANY (ARRAY(SELECT c.repo_id FROM collaborations c WHERE c.user_id = ${userId}
          UNION ALL SELECT tr.repo_id FROM team_repos tr JOIN team_users tu ON tu.team_id = tr.team_id
            WHERE tu.user_id = ${userId})))`

    /** Public repositories of owners that are not `hidden` (a visibility condition on `u`). */
    const publicUnless = (hidden: string) =>
      sql`(NOT r.is_private AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = r.owner_id AND ${sql.literal(hidden)}))`

    const visible = (filter: SearchVisibility): Statement.Fragment => {
      if (filter.kind === "public") return publicUnless("u.visibility <> 'public'")
      const { userId, restricted } = filter
      const reached = sql.or([reachedBy(userId), sql`r.owner_id = ${userId}`])
      if (restricted) return sql.and([nearTo(userId), reached])
      return sql.or([
        reached,
        publicUnless("u.visibility = 'private'"),
        sql`(NOT r.is_private AND r.owner_id IN (SELECT m.org_id FROM org_users m WHERE m.user_id = ${userId}))`
      ])
    }

    const ownerCondition = (query: RepositorySearch): Statement.Fragment => {
      const uid = query.ownerId
      const ownedBy = sql`r.owner_id = ${uid}`
      const collaborative: Array<Statement.Fragment> = [
        sql`r.owner_id <> ${uid}`,
        sql.or([
          reachedBy(uid),
          sql`(NOT r.is_private AND r.owner_id IN (SELECT m.org_id FROM org_users m JOIN users u ON u.id = m.org_id
            WHERE m.user_id = ${uid} AND u.kind = 'organization' AND u.visibility = 'private'))`
        ])
      ]
      if (!query.includePrivateMemberships) {
        collaborative.push(sql`r.owner_id NOT IN (SELECT m.org_id FROM org_users m WHERE m.user_id = ${uid} AND NOT m.is_public)`)
      }
      const collaborate = sql.and(collaborative)
      return Option.match(query.collaborate, {
        onNone: () => sql.and([nearTo(uid), sql.or([ownedBy, collaborate])]),
        onSome: (only) => only ? sql.and([nearTo(uid), collaborate]) : ownedBy
      })
    }

    /**
     * `column` contains `piece` (lower-cased), a bound parameter with LIKE's `\`, `%` and `_`
     * escaped so that they match themselves. Nothing of the keyword is written into the statement
     * text, whatever `standard_conforming_strings` says.
     */
    const contains = (column: string, piece: string) =>
      sql`${sql.literal(column)} LIKE ${`%${literalPattern(piece.toLowerCase())}%`}`

    const keywordCondition = (query: RepositorySearch): Statement.Fragment => {
      // No topics are stored: a topic-only search matches nothing.
      if (query.topicOnly) return sql`FALSE`
      const likes: Array<Statement.Fragment> = []
      // Each distinct piece once: a repeated one adds nothing to the OR but its cost.
      for (const piece of new Set(query.keyword.toLowerCase().split(","))) {
        likes.push(contains("r.lower_name", piece))
        if (query.includeDescription) likes.push(contains("lower(r.description)", piece))
      }
      // An `owner/repo` keyword also matches owner and name apart. Forgejo adds that term once per
      // piece, the same each time: here it is added once (thousands of pieces each carrying its
      // subquery held the embedded database for 26 s).
      const slashed = query.keyword.split("/")
      if (slashed.length === 2) {
        likes.push(sql`(r.owner_id IN (SELECT u.id FROM users u WHERE ${contains("u.lower_name", slashed[0] ?? "")})
          AND ${contains("r.lower_name", slashed[1] ?? "")})`)
      }
      return sql.or(likes)
    }

    const searchCondition = (query: RepositorySearch): Statement.Fragment => {
      const conditions: Array<Statement.Fragment> = query.visibility.map(visible)
      const bool = (column: string, value: Option.Option<boolean>) => {
        if (Option.isSome(value)) conditions.push(sql`${sql.literal(column)} = ${value.value}`)
      }
      bool("r.is_private", query.isPrivate)
      bool("r.is_template", query.template)
      bool("r.is_fork", query.fork)
      bool("r.is_mirror", query.mirror)
      bool("r.is_archived", query.archived)
      if (query.ownerId > 0) conditions.push(ownerCondition(query))
      if (query.keyword !== "") conditions.push(keywordCondition(query))
      return conditions.length === 0 ? sql`TRUE` : sql.and(conditions)
    }

    const searchOrder = (query: RepositorySearch): Statement.Fragment => {
      const terms: Array<Statement.Fragment> = []
      const slashed = query.keyword.split("/")
      if (slashed.length === 2) {
        terms.push(sql`CASE WHEN o.lower_name LIKE ${literalPattern((slashed[0] ?? "").toLowerCase())} THEN 0 ELSE 1 END`)
      }
      Option.match(query.order, {
        onNone: () => terms.push(sql.literal("r.lower_name ASC, r.id ASC")),
        onSome: ({ sort, descending }) => {
          const direction = descending ? "DESC" : "ASC"
          terms.push(sql.literal(`${ORDER_COLUMN[sort]} ${direction}`))
          if (sort === "alpha") terms.push(sql.literal(`r.lower_name ${direction}`))
          terms.push(sql.literal(`r.id ${direction}`))
        }
      })
      return sql.csv(terms)
    }

    const keptCount = (key: string, seenEpoch: unknown): number | undefined => {
      const kept = counts.get(key)
      if (kept === undefined || seenEpoch === null || seenEpoch === undefined || kept.epoch !== String(seenEpoch)) return undefined
      counts.delete(key)
      counts.set(key, kept)
      return kept.total
    }

    const keepCount = (key: string, epochAtCount: unknown, total: number) => {
      counts.delete(key)
      if (epochAtCount === null || epochAtCount === undefined) return
      counts.set(key, { epoch: String(epochAtCount), total })
      for (const oldest of counts.keys()) {
        if (counts.size <= COUNTS_KEPT) break
        counts.delete(oldest)
      }
    }

    return (query: RepositorySearch): Effect.Effect<SearchRows<Row>> =>
      Effect.gen(function*() {
        const condition = searchCondition(query)
        const { limit } = query.page
        const offset = offsetOf(query.page)
        // The epoch first, the columns from position 1 on. LIMIT and OFFSET are written into the text
        // (numbers: nothing to quote): a statement without parameters keeps the plan made at its first
        // run on a connection, while a LIMIT parameter, whose generic plan looks dearer than the custom
        // ones, had every run planned afresh (a third of the database time of a common keyword's page).
        const values = yield* sql`
          SELECT ${epoch} AS search_epoch, ${selected} FROM repositories r JOIN users o ON o.id = r.owner_id
          WHERE ${condition} ORDER BY ${searchOrder(query)}
          LIMIT ${sql.literal(String(limit))} OFFSET ${sql.literal(String(offset))}`.values
        const outsideTransaction = Option.isNone(yield* Effect.serviceOption(sql.transactionService))
        const rows = values.map((row) => read(row, 1, outsideTransaction))
        if (rows.length < limit && (rows.length > 0 || offset === 0)) return { rows, total: offset + rows.length }

        const counting = sql<{ readonly total: unknown; readonly search_epoch: unknown }>`
          SELECT count(*) AS total, ${epoch} AS search_epoch FROM repositories r WHERE ${condition}`
        const key = JSON.stringify(counting.compile())
        const kept = keptCount(key, values[0]?.[0])
        if (kept !== undefined) return { rows, total: kept }
        const [counted] = yield* counting
        const total = int(counted?.total ?? 0)
        keepCount(key, counted?.search_epoch, total)
        return { rows, total }
      }).pipe(Effect.orDie)
  })
