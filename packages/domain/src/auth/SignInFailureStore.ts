/**
 * Failed password sign-ins per key (SignInFailureKeys: a client address; an account from an
 * address), each counted in a fixed window that opens with the key's first failure. Kept in the
 * database, so that on a PostgreSQL server every process of a site counts in one place and a limit
 * holds whichever process a guess reaches.
 *
 * An attempt is counted before its password is derived, and forgiven when it succeeds: a sign-in
 * that never got to count (the database failed) never gets to derive either, and concurrent
 * attempts cannot all pass a check made before any of them counted.
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
  /** Up to `limit` windows with failures of any key, still open at `now` (KnownFailures reads what it has not heard). */
  readonly recentWindows: (windowMillis: number, now: number, limit: number) => Effect.Effect<ReadonlyArray<FailureWindow>>
  /**
   * Counts one failure of each key at `now`: in its open window, or in a new one when its window
   * has ended. Windows that ended are forgotten. Answers each key's window with this failure counted.
   */
  readonly record: (keys: ReadonlyArray<string>, windowMillis: number, now: number) => Effect.Effect<ReadonlyArray<FailureWindow>>
  /**
   * An attempt counted by `record` succeeded: the `cleared` keys' failures are forgotten (an
   * account signed in from an address), one failure of each `uncounted` key is taken back.
   * Answers the keys (of both) left without failures.
   */
  readonly forgive: (cleared: ReadonlyArray<string>, uncounted: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
}>()("@kiln/domain/auth/SignInFailureStore") {}

/**
 * Milliseconds until `key` may try again when it has more than `allowed` failures in its open
 * window (0 allows any number); 0 when it may try now.
 */
export const refusalMillis = (
  windows: ReadonlyArray<FailureWindow>,
  key: string,
  allowed: number,
  windowMillis: number,
  now: number
): number => {
  if (allowed <= 0) return 0
  const window = windows.find((candidate) => candidate.key === key)
  return window !== undefined && window.failures > allowed ? Math.max(0, window.startedAt + windowMillis - now) : 0
}
