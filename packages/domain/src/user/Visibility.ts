/**
 * Who may see a user or organization. Bodies bind it with `In(,public,limited,private)`: the empty
 * string is allowed and means "the instance default" (create) or "unchanged" (edit); anything else
 * is a 422 `[Visibility]: In`. [modules/structs/visible_type.go, modules/structs/admin_user.go]
 */
import { Effect, Schema } from "effect"
import { Invalid } from "../errors.ts"

export const visibilities = ["public", "limited", "private"] as const

export const Visibility = Schema.Literals(visibilities)
export type Visibility = typeof Visibility.Type

export const isVisibility = (value: string): value is Visibility =>
  visibilities.some((visibility) => visibility === value)

/**
 * Binding level: `undefined` for the empty string, the visibility otherwise, or
 * 422 `[<field>]: In` (field: the Go struct field name, `Visibility`).
 */
export const bindVisibility = (value: string, field: string): Effect.Effect<Visibility | undefined, Invalid> => {
  if (value === "") return Effect.succeed(undefined)
  return isVisibility(value) ? Effect.succeed(value) : Effect.fail(new Invalid({ field, message: `[${field}]: In` }))
}
