/**
 * How much password sign-in may cost the server: each attempt derives a memory-hard hash (scrypt,
 * 128 MiB), so only a few run at once and the rest wait briefly, and failed attempts are limited
 * per account and per client address so that guessing (or burning CPU) from the outside stops.
 */
import { Context, Schema } from "effect"

export interface SignInLimitsShape {
  /** `KILN_SIGNIN_MAX_FAILURES_PER_ACCOUNT`: failed sign-ins of one account in a window; 0: no limit. */
  readonly maxFailuresPerAccount: number
  /** `KILN_SIGNIN_MAX_FAILURES_PER_ADDRESS`: failed sign-ins from one client address in a window; 0: no limit. */
  readonly maxFailuresPerAddress: number
  /** `KILN_SIGNIN_FAILURE_WINDOW`: the window, in seconds. */
  readonly failureWindowSeconds: number
  /** `KILN_PASSWORD_HASH_MAX_CONCURRENT`: password hashes derived at once (sign-ins and new passwords). */
  readonly maxConcurrentDerivations: number
  /** How long a sign-in waits for a turn to derive before it is refused as too many. */
  readonly derivationWaitMillis: number
}

export class SignInLimits extends Context.Reference<SignInLimitsShape>("@kiln/domain/auth/SignInLimits", {
  defaultValue: () => ({
    maxFailuresPerAccount: 10,
    maxFailuresPerAddress: 100,
    failureWindowSeconds: 900,
    maxConcurrentDerivations: 2,
    derivationWaitMillis: 2_000
  })
}) {}

/** Too many sign-ins: HTTP 429 with `Retry-After`. */
export class SignInThrottled extends Schema.TaggedError<SignInThrottled>()("SignInThrottled", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}) {}
