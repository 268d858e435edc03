/**
 * Failed password sign-ins per key (an account, a client address), each counted in a fixed window
 * that opens with the key's first failure. Kept in the database, so that on a PostgreSQL server
 * every process of a site counts in one place and a limit holds whichever process a guess reaches.
 */
import { Context, type Effect } from "effect"

export interface FailureWindow {
  readonly key: string
  /** When the window's first failure was counted (epoch milliseconds). */
  readonly startedAt: number
  readonly failures: number
}

export class SignInFailureStore extends Context.Service<SignInFailureStore, {
  /** The windows of `keys` still open at `now`: opened less than `windowMillis` before it. */
  readonly openWindows: (keys: ReadonlyArray<string>, windowMillis: number, now: number) => Effect.Effect<ReadonlyArray<FailureWindow>>
  /**
   * Counts one failure of each key at `now`: in its open window, or in a new one when its window
   * has ended. Windows that ended are forgotten.
   */
  readonly record: (keys: ReadonlyArray<string>, windowMillis: number, now: number) => Effect.Effect<void>
  /** Forgets a key's failures (its account signed in). */
  readonly clear: (key: string) => Effect.Effect<void>
}>()("@kiln/domain/auth/SignInFailureStore") {}

/**
 * Milliseconds until `key` may try again when it has `limit` failures in its open window (a limit
 * of 0 never refuses); 0 when it may try now.
 */
export const refusalMillis = (
  windows: ReadonlyArray<FailureWindow>,
  key: string,
  limit: number,
  windowMillis: number,
  now: number
): number => {
  if (limit <= 0) return 0
  const window = windows.find((candidate) => candidate.key === key)
  return window !== undefined && window.failures >= limit ? Math.max(0, window.startedAt + windowMillis - now) : 0
}
