/**
 * User and organization names (one name space), checked as Forgejo does in two places:
 *
 * - **binding** (request decoding, `binding:"Required;Username;MaxSize(40)"`): the first failing rule
 *   becomes a 422 `[<GoField>]: <rule>`, e.g. `[Username]: invalid username` (`[UserName]` in org bodies).
 *   See {@link bindUserName}.
 * - **model level** (`IsUsableUsername`, run when the account is created or renamed): characters again,
 *   then reserved names and patterns, with Forgejo's error texts (422 on the admin routes).
 *   See {@link checkUsableUserName}.
 *
 * [modules/validation/helpers.go IsValidUsername, models/user/user.go, models/db/name.go]
 */
import { Effect, Schema } from "effect"
import { Invalid } from "../errors.ts"

/** `MaxSize(40)` on every body that carries a user or organization name. */
export const USER_NAME_MAX_LENGTH = 40

// Forgejo's default `ALLOW_DOTS_IN_USERNAMES=true` pattern; `\w` in Go's RE2 is ASCII only.
const validUsernamePattern = /^[0-9A-Za-z][-._0-9A-Za-z]*$/
// No consecutive or trailing non-alphanumeric characters.
const invalidUsernamePattern = /[-._]{2,}|[-._]$/

/** The `Username` binding rule (and the first step of `IsUsableUsername`). */
export const isValidUserName = (name: string): boolean =>
  validUsernamePattern.test(name) && !invalidUsernamePattern.test(name)

/** Names no account may take, compared after lower-casing and trimming. */
export const reservedUserNames: ReadonlyArray<string> = [
  ".", "..", "-", ".well-known",
  "api", "metrics", "v2",
  "assets", "attachments",
  "avatar", "avatars", "repo-avatars",
  "captcha", "login", "org", "repo", "user",
  "admin", "devtest", "explore", "issues", "pulls", "milestones", "notifications", "report_abuse",
  "favicon.ico", "manifest.json", "robots.txt", "sitemap.xml", "ssh_info", "swagger.v1.json",
  "ghost", "gitea-actions", "forgejo-actions"
]

/** Suffixes served by the `/{username}` route itself (keys, feeds, avatar). */
export const reservedUserNamePatterns: ReadonlyArray<string> = ["*.keys", "*.gpg", "*.rss", "*.atom", "*.png"]

/** Reserved names and `*`-patterns of one kind of name (users, repositories). */
export interface ReservedNames {
  readonly names: ReadonlyArray<string>
  readonly patterns: ReadonlyArray<string>
}

// Go's unicode.IsSpace set (what strings.TrimSpace removes); JS `trim` would also drop U+FEFF.
const isGoSpace = (code: number): boolean =>
  (code >= 0x09 && code <= 0x0d) || code === 0x20 || code === 0x85 || code === 0xa0 || code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f ||
  code === 0x3000

/**
 * Go's `strings.TrimSpace`, in one pass from each end (every Go space is one UTF-16 unit). A
 * regular expression `\s+$` retries from every space of a run between words: quadratic, 2.3 s for
 * 80,000 spaces (review 4b30e64, finding 34).
 */
export const trimGoSpace = (text: string): string => {
  let start = 0
  let end = text.length
  while (start < end && isGoSpace(text.charCodeAt(start))) start++
  while (end > start && isGoSpace(text.charCodeAt(end - 1))) end--
  return start === 0 && end === text.length ? text : text.slice(start, end)
}

/**
 * Forgejo's `db.IsUsableName`: the message of the first rule `name` breaks, or `undefined` when usable.
 * Names match exactly (after lower-casing and trimming); patterns are `*suffix` or `prefix*`.
 */
export const unusableNameReason = (reserved: ReservedNames, name: string): string | undefined => {
  const lower = trimGoSpace(name.toLowerCase())
  if (lower.length === 0) return "name is empty"
  if (reserved.names.includes(lower)) return `name is reserved [name: ${lower}]`
  const pattern = reserved.patterns.find((pat) =>
    (pat.startsWith("*") && lower.endsWith(pat.slice(1))) || (pat.endsWith("*") && lower.startsWith(pat.slice(0, -1)))
  )
  return pattern === undefined ? undefined : `name pattern is not allowed [pattern: ${pattern}]`
}

/** Forgejo's `ErrNameCharsNotAllowed` text. */
export const nameCharsNotAllowedMessage = (name: string): string =>
  `name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`

/** `IsUsableUsername` as a message: characters, then reserved names, then patterns. */
export const unusableUserNameReason = (name: string): string | undefined =>
  isValidUserName(name)
    ? unusableNameReason({ names: reservedUserNames, patterns: reservedUserNamePatterns }, name)
    : nameCharsNotAllowedMessage(name)

/** Which binding rule `value` breaks (`Required`, `invalid username`, `MaxSize`), if any. */
export const userNameBindingRule = (value: string): string | undefined => {
  if (value.length === 0) return "Required"
  if (!isValidUserName(value)) return "invalid username"
  if ([...value].length > USER_NAME_MAX_LENGTH) return "MaxSize"
  return undefined
}

/**
 * A user or organization name that passes both the binding rule and `IsUsableUsername`.
 * Decoding failures carry Forgejo's texts (`invalid username`, `MaxSize`, `name is reserved [name: admin]`, ...).
 */
export const UserName = Schema.String.check(
  Schema.makeFilter((name: string) => userNameBindingRule(name) ?? unusableUserNameReason(name) ?? true)
).pipe(Schema.brand("UserName"))
export type UserName = typeof UserName.Type

/**
 * Binding level: 422 `[<field>]: <rule>` (field is the Go struct field name: `Username` for users,
 * `UserName` for organizations). Succeeds with the value unchanged.
 */
export const bindUserName = (value: string, field: string): Effect.Effect<string, Invalid> => {
  const rule = userNameBindingRule(value)
  return rule === undefined ? Effect.succeed(value) : Effect.fail(new Invalid({ field, message: `[${field}]: ${rule}` }))
}

/**
 * Model level (`IsUsableUsername`): `name is invalid [..]: ...`, `name is empty`,
 * `name is reserved [name: <lower>]` or `name pattern is not allowed [pattern: *.keys]`.
 * Does not check the length: in Forgejo that is binding only.
 */
export const checkUsableUserName = (name: string): Effect.Effect<string, Invalid> => {
  const reason = unusableUserNameReason(name)
  return reason === undefined ? Effect.succeed(name) : Effect.fail(new Invalid({ message: reason }))
}

/** Both levels, as a request for a new account or a rename meets them; the first failure wins. */
export const parseUserName = (value: string, field: string): Effect.Effect<UserName, Invalid> =>
  Effect.gen(function*() {
    yield* bindUserName(value, field)
    yield* checkUsableUserName(value)
    return UserName.make(value)
  })

/** The key for case-insensitive lookups and uniqueness (Forgejo's `lower_name`). */
export const lowerUserName = (name: string): string => name.toLowerCase()
