/** Forgejo's AccessToken JSON: `sha1` carries the secret only in the creation response. */
import { Schema } from "effect"
import type { AccessToken } from "@kiln/domain/auth/AccessToken"
import { rfc3339 } from "./Time.ts"

export const AccessTokenJson = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  sha1: Schema.String,
  token_last_eight: Schema.String,
  scopes: Schema.Array(Schema.String),
  created_at: Schema.String,
  /** Forgejo v15: the repositories a token is limited to, null for a token that is not (Kiln's never are). */
  repositories: Schema.Null
}).annotate({ identifier: "AccessToken" })
export type AccessTokenJson = typeof AccessTokenJson.Type

export const toAccessTokenJson = (token: AccessToken, secret = ""): AccessTokenJson => ({
  id: token.id,
  name: token.name,
  sha1: secret,
  token_last_eight: token.lastEight,
  scopes: token.scopes,
  created_at: rfc3339(token.createdAt),
  repositories: null
})
