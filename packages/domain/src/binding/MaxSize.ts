/**
 * Forgejo's `MaxSize(n)` binding rule: more than `n` Unicode characters is 422 `[Field]: MaxSize`.
 * Also the limit of fields Forgejo keeps in `VARCHAR(255)` columns without a binding rule (a token's
 * name, a key's title, an attachment's name): Forgejo fails in its database past it, Kiln refuses
 * the input before anything is stored (a long text in an indexed column fails the index).
 */
import { Effect } from "effect"
import { Invalid } from "../errors.ts"

/** The width of Forgejo's `VARCHAR(255)` columns. */
export const STORED_NAME_MAX_LENGTH = 255

/** Characters as Go's `utf8.RuneCountInString` counts them, stopping once past `max`. */
export const isLongerThan = (value: string, max: number): boolean => {
  // Two UTF-16 units at most per character: a string this short cannot be too long.
  if (value.length <= max) return false
  let count = 0
  for (const _ of value) {
    if (++count > max) return true
  }
  return false
}

/** `[Field]: MaxSize` (`field` is the Go struct field's name) when `value` is longer than `max`. */
export const checkMaxSize = (field: string, value: string | undefined, max: number): Effect.Effect<void, Invalid> =>
  value !== undefined && isLongerThan(value, max)
    ? Effect.fail(new Invalid({ field, message: `[${field}]: MaxSize` }))
    : Effect.void
