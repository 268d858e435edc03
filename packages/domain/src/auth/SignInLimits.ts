/**
 * How much password sign-in may cost the server: each attempt derives a memory-hard hash (scrypt,
 * 128 MiB), so only a few run at once and the rest wait their turn in a bounded queue, and failed
 * attempts are limited per client address, and per account from each address, so that guessing
 * (or burning CPU) from the outside stops without locking the account's owner out.
 */
import { Context, Schema } from "effect"

export interface SignInLimitsShape {
  /**
   * `KILN_SIGNIN_MAX_FAILURES_PER_ACCOUNT`: failed sign-ins of one account from one client address
   * in a window; 0: no limit. Counted per address so that a stranger's failures elsewhere never
   * refuse the owner.
   */
  readonly maxFailuresPerAccount: number
  /** `KILN_SIGNIN_MAX_FAILURES_PER_ADDRESS`: failed sign-ins from one client address in a window; 0: no limit. */
  readonly maxFailuresPerAddress: number
  /** `KILN_SIGNIN_FAILURE_WINDOW`: the window, in seconds. */
  readonly failureWindowSeconds: number
  /** `KILN_PASSWORD_HASH_MAX_CONCURRENT`: password hashes derived at once (sign-ins and new passwords). */
  readonly maxConcurrentDerivations: number
  /**
   * Sign-ins that may wait for a turn to derive; one more is refused as too many at once. A queue
   * rather than a time limit: a burst (a CI fan-out of pushes) waits its turn, and only a server
   * that cannot catch up refuses.
   */
  readonly maxWaitingSignIns: number
}

/** Sign-ins that may wait per derivation turn: 32 derivations of a few hundred ms are a wait of seconds. */
export const WAITING_SIGN_INS_PER_TURN = 32

export class SignInLimits extends Context.Reference<SignInLimitsShape>("@kiln/domain/auth/SignInLimits", {
  defaultValue: () => ({
    maxFailuresPerAccount: 10,
    maxFailuresPerAddress: 100,
    failureWindowSeconds: 900,
    maxConcurrentDerivations: 2,
    maxWaitingSignIns: 2 * WAITING_SIGN_INS_PER_TURN
  })
}) {}

/** Too many sign-ins: HTTP 429 with `Retry-After`. */
export class SignInThrottled extends Schema.TaggedError<SignInThrottled>()("SignInThrottled", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}) {}
