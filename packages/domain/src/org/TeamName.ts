/**
 * Team names. Binding: `Required;AlphaDashDot;MaxSize(255)` on creation, `AlphaDashDot;MaxSize(255)`
 * on edit → 422 `[Name]: <rule>`. Model level (`IsUsableTeamName`): only the exact, case-sensitive
 * name `new` is reserved (`name is reserved [name: new]`); Forgejo's handler maps only duplicates to
 * 422, so there `new` ends as a 500. Uniqueness within the org is case-insensitive.
 * [modules/structs/org_team.go, models/organization/team.go]
 */
import { Effect, Schema } from "effect"
import { Invalid } from "../errors.ts"
import { isAlphaDashDot } from "../repo/RepositoryName.ts"

export const TEAM_NAME_MAX_LENGTH = 255

/** Which binding rule `value` breaks (`Required`, `AlphaDashDot`, `MaxSize`), if any. */
export const teamNameBindingRule = (value: string): string | undefined => {
  if (value.length === 0) return "Required"
  if (!isAlphaDashDot(value)) return "AlphaDashDot"
  if ([...value].length > TEAM_NAME_MAX_LENGTH) return "MaxSize"
  return undefined
}

/** `IsUsableTeamName` as a message. */
export const unusableTeamNameReason = (name: string): string | undefined =>
  name === "new" ? `name is reserved [name: ${name}]` : undefined

/** A team name that passes both levels. */
export const TeamName = Schema.String.check(
  Schema.makeFilter((name: string) => teamNameBindingRule(name) ?? unusableTeamNameReason(name) ?? true)
).pipe(Schema.brand("TeamName"))
export type TeamName = typeof TeamName.Type

/** Binding level: 422 `[<field>]: <rule>` (field `Name`). On edit, skip `Required` by not calling this for "". */
export const bindTeamName = (value: string, field: string): Effect.Effect<string, Invalid> => {
  const rule = teamNameBindingRule(value)
  return rule === undefined ? Effect.succeed(value) : Effect.fail(new Invalid({ field, message: `[${field}]: ${rule}` }))
}

/** Model level: `name is reserved [name: new]`. */
export const checkUsableTeamName = (name: string): Effect.Effect<string, Invalid> => {
  const reason = unusableTeamNameReason(name)
  return reason === undefined ? Effect.succeed(name) : Effect.fail(new Invalid({ message: reason }))
}

/** Both levels, binding first. */
export const parseTeamName = (value: string, field: string): Effect.Effect<TeamName, Invalid> =>
  Effect.gen(function*() {
    yield* bindTeamName(value, field)
    yield* checkUsableTeamName(value)
    return TeamName.make(value)
  })

/** The key for case-insensitive uniqueness within an organization. */
export const lowerTeamName = (name: string): string => name.toLowerCase()
