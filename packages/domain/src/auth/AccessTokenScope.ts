/**
 * Personal access token scopes, with Forgejo's semantics [models/auth/access_token_scope.go,
 * routers/api/v1/user/app.go, routers/api/v1/api.go tokenRequiresScopes]:
 *
 * - `read:X` / `write:X` per category; `write:X` implies `read:X`; `all` is every write scope;
 *   `public-only` limits the token to public resources. The literal `sudo` and empty items are ignored.
 * - A list is read by joining it with `,` and splitting again, so `["read:user,write:admin"]` is two scopes.
 * - Normalising keeps the smallest equivalent list in Forgejo's order (`public-only`, then per category
 *   write before read), and a run of every write scope becomes `all`.
 *
 * Scopes restrict token-authenticated requests only (PAT/OAuth2), never password basic auth.
 */
import { Effect, Schema } from "effect"
import { Forbidden, Invalid } from "../errors.ts"

/** In Forgejo's order, which is also the order of normalised lists. */
export const scopeCategories = [
  "activitypub", "admin", "misc", "notification", "organization", "package", "issue", "repository", "user"
] as const
export type ScopeCategory = typeof scopeCategories[number]

export type ScopeLevel = "read" | "write"

export const accessTokenScopes = [
  "all",
  "public-only",
  ...scopeCategories.flatMap((category) => [`read:${category}` as const, `write:${category}` as const])
] as const

export const AccessTokenScope = Schema.Literals(accessTokenScopes)
export type AccessTokenScope = typeof AccessTokenScope.Type

export const isAccessTokenScope = (value: string): value is AccessTokenScope =>
  accessTokenScopes.some((scope) => scope === value)

/** A scope that a route needs. */
export interface RequiredScope {
  readonly category: ScopeCategory
  readonly level: ScopeLevel
}

export const scopeFor = (category: ScopeCategory, level: ScopeLevel): AccessTokenScope => `${level}:${category}`

/** Forgejo asks for `write:X` on POST, PUT, PATCH and DELETE and `read:X` on everything else. */
export const scopeLevelForMethod = (method: string): ScopeLevel =>
  method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE" ? "write" : "read"

// Bitmaps as in Forgejo: each write bit includes its read bit, so "has" is a subset test.
const publicOnlyBits = 1
const readBits = (index: number): number => 1 << (1 + 2 * index)
const writeBits = (index: number): number => (1 << (2 + 2 * index)) | readBits(index)
const allBits = scopeCategories.reduce((bits, _, index) => bits | writeBits(index), 0)

const categoryIndex = new Map(scopeCategories.map((category, index) => [category, index]))

const levelBits = (category: ScopeCategory, level: ScopeLevel): number => {
  const index = categoryIndex.get(category) ?? 0
  return level === "write" ? writeBits(index) : readBits(index)
}

// A table rather than parsing the scope: every token-authenticated request reads its token's bits.
const scopeBits: ReadonlyMap<AccessTokenScope, number> = new Map([
  ["all", allBits],
  ["public-only", publicOnlyBits],
  ...scopeCategories.flatMap((category) =>
    (["read", "write"] as const).map((level) => [scopeFor(category, level), levelBits(category, level)] as const)
  )
])

const bitsOf = (scope: AccessTokenScope): number => scopeBits.get(scope) ?? 0

// The order Forgejo rebuilds a normalised list in: parents before the scopes they imply.
const canonicalOrder: ReadonlyArray<AccessTokenScope> = [
  "public-only",
  ...scopeCategories.flatMap((category) => [scopeFor(category, "write"), scopeFor(category, "read")])
]
const allWrites = scopeCategories.map((category) => scopeFor(category, "write")).join(",")

const bitmapOf = (scopes: ReadonlyArray<AccessTokenScope>): number =>
  scopes.reduce((bits, scope) => bits | bitsOf(scope), 0)

const has = (bitmap: number, bits: number): boolean => (bitmap & bits) === bits

const scopesOf = (bitmap: number): ReadonlyArray<AccessTokenScope> => {
  const kept: Array<AccessTokenScope> = []
  let rebuilt = 0
  for (const scope of canonicalOrder) {
    const bits = bitsOf(scope)
    if (has(bitmap, bits) && (rebuilt | bits) !== rebuilt) {
      rebuilt |= bits
      kept.push(scope)
    }
  }
  // Forgejo replaces the joined run of every write scope with "all".
  return kept.join(",").replaceAll(allWrites, "all").split(",").filter(isAccessTokenScope)
}

/** The smallest equivalent list, in Forgejo's order (`[]` for no scope at all). */
export const normalizeScopes = (scopes: ReadonlyArray<AccessTokenScope>): ReadonlyArray<AccessTokenScope> =>
  scopesOf(bitmapOf(scopes))

/**
 * Reads the `scopes` of a token-creation body: unknown item → `invalid access token scope provided:
 * invalid access token scope: <item>`; nothing left (e.g. `[]` or `["sudo"]`) → `access token must have a
 * scope`. Both are 400 in Forgejo. Succeeds with the normalised list.
 */
export const parseAccessTokenScopes = (
  requested: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<AccessTokenScope>, Invalid> => {
  const valid: Array<AccessTokenScope> = []
  for (const item of requested.join(",").split(",")) {
    if (item === "" || item === "sudo") continue
    if (!isAccessTokenScope(item)) {
      return Effect.fail(
        new Invalid({ message: `invalid access token scope provided: invalid access token scope: ${item}` })
      )
    }
    valid.push(item)
  }
  const normalized = normalizeScopes(valid)
  return normalized.length === 0
    ? Effect.fail(new Invalid({ message: "access token must have a scope" }))
    : Effect.succeed(normalized)
}

/** Whether the token holds every required scope (all of them, as Forgejo requires). */
export const hasScopes = (
  tokenScopes: ReadonlyArray<AccessTokenScope>,
  required: ReadonlyArray<RequiredScope>
): boolean => {
  const bitmap = bitmapOf(tokenScopes)
  return required.every(({ category, level }) => has(bitmap, levelBits(category, level)))
}

/** Forgejo's 403 text: `token does not have at least one of required scope(s): [read:admin read:repository]`. */
export const requiredScopeMessage = (required: ReadonlyArray<RequiredScope>): string =>
  `token does not have at least one of required scope(s): [${
    required.map(({ category, level }) => scopeFor(category, level)).join(" ")
  }]`

/** {@link hasScopes} as an effect failing with Forgejo's 403 text. No required scope: always passes. */
export const requireScopes = (
  tokenScopes: ReadonlyArray<AccessTokenScope>,
  required: ReadonlyArray<RequiredScope>
): Effect.Effect<void, Forbidden> =>
  hasScopes(tokenScopes, required)
    ? Effect.void
    : Effect.fail(new Forbidden({ message: requiredScopeMessage(required) }))

/** Forgejo's 403 text when a public-only token reaches a repository that is not public. */
export const PUBLIC_ONLY_REPO_MESSAGE = "token scope is limited to public repos"
/** ... an organization that is not public. */
export const PUBLIC_ONLY_ORG_MESSAGE = "token scope is limited to public orgs"
/** ... a user that is not public. */
export const PUBLIC_ONLY_USER_MESSAGE = "token scope is limited to public users"
/** ... the packages of a private owner. */
export const PUBLIC_ONLY_PACKAGE_MESSAGE = "token scope is limited to public packages"

/** Whether the token is limited to public repositories, organizations and users. */
export const isPublicOnly = (tokenScopes: ReadonlyArray<AccessTokenScope>): boolean =>
  has(bitmapOf(tokenScopes), publicOnlyBits)
