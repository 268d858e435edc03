/** A personal access token. Only a salted hash of its secret is kept. */
import type { AccessTokenScope } from "./AccessTokenScope.ts"

export interface AccessToken {
  readonly id: number
  readonly userId: number
  readonly name: string
  /** Normalised scope strings, e.g. `["write:repository", "read:user"]` or `["all"]`. */
  readonly scopes: ReadonlyArray<AccessTokenScope>
  /** The secret's last eight characters: the lookup key (the secret itself is never stored). */
  readonly lastEight: string
  readonly createdAt: number
}

/** A token with what is needed to check a presented secret against it. */
export interface StoredAccessToken extends AccessToken {
  readonly salt: string
  readonly hash: string
}

/** Personal access tokens are exactly 40 lowercase hex characters. */
export const isTokenSecret = (value: string): boolean => /^[0-9a-f]{40}$/.test(value)
