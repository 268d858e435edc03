/** Forgejo's AccessToken JSON: `sha1` carries the secret only in the creation response. */
import { Schema } from "effect"
import type { AccessToken } from "@kiln/domain/auth/AccessToken"

export const AccessTokenJson = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  sha1: Schema.String,
  token_last_eight: Schema.String,
  scopes: Schema.Array(Schema.String)
}).annotate({ identifier: "AccessToken" })
export type AccessTokenJson = typeof AccessTokenJson.Type

export const toAccessTokenJson = (token: AccessToken, secret = ""): AccessTokenJson => ({
  id: token.id,
  name: token.name,
  sha1: secret,
  token_last_eight: token.lastEight,
  scopes: token.scopes
})
