/** When a failed job runs again: a delay after its n-th failed attempt, or never. */

/** Milliseconds to wait after failed attempt `attempts` (1 for the first), or undefined: give up. */
export type RetrySchedule = (attempts: number) => number | undefined

export const never: RetrySchedule = () => undefined

/**
 * `initial` after the first failure, doubling after each further one, at most `max` apart, for at
 * most `maxAttempts` attempts in all.
 */
export const exponential = (options: {
  readonly initial: number
  readonly max: number
  readonly maxAttempts: number
}): RetrySchedule =>
(attempts) =>
  attempts >= options.maxAttempts
    ? undefined
    : Math.min(options.max, options.initial * 2 ** Math.min(attempts - 1, 52))
