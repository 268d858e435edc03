/**
 * SignInFailureStore on Postgres (migration 0014). A failure is one upsert, which opens a new
 * window where the key's has ended (both columns are set from the row as it was) and answers the
 * windows as counted; windows that ended are deleted as failures are counted, so the table holds
 * only open windows (one upsert may not touch a row twice: the keys are made distinct first). Keys
 * are short whatever a request carried (SignInFailureKeys), so no key can fail the insert.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type FailureWindow, SignInFailureStore } from "@kiln/domain/auth/SignInFailureStore"
import { int } from "./Rows.ts"

interface WindowRow {
  readonly key: string
  readonly window_started_at: unknown
  readonly failures: unknown
}

const windowOf = (row: WindowRow): FailureWindow => ({ key: row.key, startedAt: int(row.window_started_at), failures: int(row.failures) })

export const layer = Layer.effect(
  SignInFailureStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return SignInFailureStore.of({
      openWindows: (keys, windowMillis, now) =>
        keys.length === 0 ? Effect.succeed([]) : sql<WindowRow>`
          SELECT key, window_started_at, failures FROM signin_failures
          WHERE ${sql.in("key", keys)} AND window_started_at > ${now - windowMillis}`.pipe(
          Effect.map((rows) => rows.map(windowOf)),
          Effect.orDie
        ),
      recentWindows: (windowMillis, now, limit) =>
        sql<WindowRow>`
          SELECT key, window_started_at, failures FROM signin_failures
          WHERE window_started_at > ${now - windowMillis} AND failures > 0 LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(windowOf)), Effect.orDie),
      record: (keys, windowMillis, now) =>
        keys.length === 0 ? Effect.succeed([]) : Effect.gen(function*() {
          const ended = now - windowMillis
          yield* sql`DELETE FROM signin_failures WHERE window_started_at <= ${ended}`
          const rows = yield* sql<WindowRow>`
            INSERT INTO signin_failures AS f (key, window_started_at, failures)
            SELECT key, ${now}, 1 FROM unnest(${[...new Set(keys)]}::text[]) AS key
            ON CONFLICT (key) DO UPDATE SET
              window_started_at = CASE WHEN f.window_started_at <= ${ended} THEN EXCLUDED.window_started_at ELSE f.window_started_at END,
              failures = CASE WHEN f.window_started_at <= ${ended} THEN 1 ELSE f.failures + 1 END
            RETURNING key, window_started_at, failures`
          return rows.map(windowOf)
        }).pipe(Effect.orDie),
      forgive: (cleared, uncounted) =>
        Effect.gen(function*() {
          if (cleared.length > 0) yield* sql`DELETE FROM signin_failures WHERE ${sql.in("key", cleared)}`
          if (uncounted.length === 0) return cleared
          // A key without a row, or at no failures, has none left.
          const failing = yield* sql<{ readonly key: string; readonly failures: unknown }>`
            UPDATE signin_failures SET failures = failures - 1 WHERE ${sql.in("key", uncounted)} AND failures > 0
            RETURNING key, failures`.pipe(Effect.map((rows) => new Set(rows.flatMap((row) => int(row.failures) > 0 ? [row.key] : []))))
          return [...cleared, ...uncounted.filter((key) => !failing.has(key))]
        }).pipe(Effect.orDie)
    })
  })
)
