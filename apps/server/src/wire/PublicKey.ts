/** Forgejo's PublicKey JSON (url, title, fingerprint, user, read_only, key_type are omitempty). */
import { Schema } from "effect"
import type { PublicKey } from "@kiln/domain/user/PublicKey"
import { rfc3339 } from "./Time.ts"
import { UserJson } from "./User.ts"

export const PublicKeyJson = Schema.Struct({
  id: Schema.Number,
  key: Schema.String,
  url: Schema.optionalKey(Schema.String),
  title: Schema.optionalKey(Schema.String),
  fingerprint: Schema.optionalKey(Schema.String),
  created_at: Schema.String,
  /** Forgejo v15: when the key was added, or last used once something records its use. */
  updated_at: Schema.String,
  user: Schema.optionalKey(UserJson),
  read_only: Schema.optionalKey(Schema.Boolean),
  key_type: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "PublicKey" })
export type PublicKeyJson = typeof PublicKeyJson.Type

/**
 * `owner` is given only where Forgejo appends the private information (the caller owns the key
 * or is a site admin): then `user`, `read_only` and `key_type` appear.
 */
export const toPublicKeyJson = (key: PublicKey, rootUrl: string, owner: UserJson | undefined): PublicKeyJson => ({
  id: key.id,
  key: key.content,
  url: `${rootUrl}api/v1/user/keys/${key.id}`,
  ...(key.title === "" ? {} : { title: key.title }),
  fingerprint: key.fingerprint,
  created_at: rfc3339(key.createdAt),
  updated_at: rfc3339(key.updatedAt),
  ...(owner === undefined ? {} : { user: owner, ...(key.readOnly ? { read_only: true } : {}), key_type: "user" })
})
