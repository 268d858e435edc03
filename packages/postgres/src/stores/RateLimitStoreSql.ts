/** RateLimitStore on Postgres (migration 0013): one statement adds a whole batch of counts. */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type RateLimitCount, RateLimitStore } from "@kiln/domain/ratelimit/RateLimitStore"
import { int } from "./Rows.ts"

interface UsageRow {
  readonly subject: string
  readonly resource: string
  readonly window_start: unknown
  readonly used: unknown
}

export const layer = Layer.effect(
  RateLimitStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const add = (counts: ReadonlyArray<RateLimitCount>) =>
      counts.length === 0 ? Effect.succeed([]) : sql<UsageRow>`
        INSERT INTO rate_limit_usage (subject, resource, window_start, used)
        SELECT * FROM unnest(${counts.map((c) => c.subject)}::text[], ${counts.map((c) => c.resource)}::text[],
          ${counts.map((c) => c.window)}::bigint[], ${counts.map((c) => c.count)}::bigint[])
        ON CONFLICT (subject, resource, window_start) DO UPDATE SET used = rate_limit_usage.used + EXCLUDED.used
        RETURNING subject, resource, window_start, used`.pipe(
        Effect.map((rows) => rows.map((row) => ({ subject: row.subject, resource: row.resource, window: int(row.window_start), count: int(row.used) }))),
        Effect.orDie
      )
    return RateLimitStore.of({
      add,
      prune: (window) => sql`DELETE FROM rate_limit_usage WHERE window_start < ${window}`.pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
