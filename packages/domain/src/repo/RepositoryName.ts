/**
 * Repository names, checked as Forgejo does in two places:
 *
 * - **binding** (`binding:"Required;AlphaDashDot;MaxSize(100)"`; edits use `OmitEmpty;...`, so an
 *   empty new name skips them): 422 `[<GoField>]: <rule>`, e.g. `[Name]: AlphaDashDot`
 *   (`[RepoName]` in migration bodies). See {@link bindRepositoryName}.
 * - **model level** (`IsUsableRepoName`): characters, reserved `.`, `..`, `-`, and the patterns
 *   `*.git *.wiki *.rss *.atom` (case-insensitive) with Forgejo's texts. See {@link checkUsableRepositoryName}.
 *
 * [models/repo/repo.go, models/db/name.go, go-chi/binding AlphaDashDot]
 */
import { Effect, Schema } from "effect"
import { Invalid } from "../errors.ts"
import { nameCharsNotAllowedMessage, unusableNameReason } from "../user/UserName.ts"

export const REPOSITORY_NAME_MAX_LENGTH = 100

const alphaDashDotPattern = /^[-_.0-9A-Za-z]*$/

/** The `AlphaDashDot` binding rule: only ASCII letters, digits, `_`, `-` and `.` (the empty string passes). */
export const isAlphaDashDot = (value: string): boolean => alphaDashDotPattern.test(value)

export const reservedRepositoryNames = { names: [".", "..", "-"], patterns: ["*.git", "*.wiki", "*.rss", "*.atom"] }

/** Which binding rule `value` breaks (`Required`, `AlphaDashDot`, `MaxSize`), if any. */
export const repositoryNameBindingRule = (value: string): string | undefined => {
  if (value.length === 0) return "Required"
  if (!isAlphaDashDot(value)) return "AlphaDashDot"
  if ([...value].length > REPOSITORY_NAME_MAX_LENGTH) return "MaxSize"
  return undefined
}

/** `IsUsableRepoName` as a message, or `undefined` when the name is usable. */
export const unusableRepositoryNameReason = (name: string): string | undefined =>
  isAlphaDashDot(name) ? unusableNameReason(reservedRepositoryNames, name) : nameCharsNotAllowedMessage(name)

/** A repository name that passes both levels; failures carry Forgejo's texts. */
export const RepositoryName = Schema.String.check(
  Schema.makeFilter((name: string) => repositoryNameBindingRule(name) ?? unusableRepositoryNameReason(name) ?? true)
).pipe(Schema.brand("RepositoryName"))
export type RepositoryName = typeof RepositoryName.Type

/** Binding level: 422 `[<field>]: <rule>`; `field` is the Go struct field (`Name`, `RepoName`). */
export const bindRepositoryName = (value: string, field: string): Effect.Effect<string, Invalid> => {
  const rule = repositoryNameBindingRule(value)
  return rule === undefined ? Effect.succeed(value) : Effect.fail(new Invalid({ field, message: `[${field}]: ${rule}` }))
}

/**
 * Model level (`IsUsableRepoName`): `name is invalid [..]: ...`, `name is empty`,
 * `name is reserved [name: ..]`, `name pattern is not allowed [pattern: *.git]`.
 */
export const checkUsableRepositoryName = (name: string): Effect.Effect<string, Invalid> => {
  const reason = unusableRepositoryNameReason(name)
  return reason === undefined ? Effect.succeed(name) : Effect.fail(new Invalid({ message: reason }))
}

/** Both levels, binding first. */
export const parseRepositoryName = (value: string, field: string): Effect.Effect<RepositoryName, Invalid> =>
  Effect.gen(function*() {
    yield* bindRepositoryName(value, field)
    yield* checkUsableRepositoryName(value)
    return RepositoryName.make(value)
  })

/** The key for case-insensitive lookups and uniqueness within an owner (Forgejo's `lower_name`). */
export const lowerRepositoryName = (name: string): string => name.toLowerCase()
