/** Forgejo's DeployKey JSON (services/convert ToDeployKey; `repository` only with the private information). */
import { Schema } from "effect"
import type { DeployKey } from "@kiln/domain/repo/DeployKey"
import { RepositoryJson } from "./Repository.ts"
import { rfc3339 } from "./Time.ts"

export const DeployKeyJson = Schema.Struct({
  id: Schema.Number,
  key_id: Schema.Number,
  key: Schema.String,
  url: Schema.String,
  title: Schema.String,
  fingerprint: Schema.String,
  created_at: Schema.String,
  read_only: Schema.Boolean,
  repository: Schema.optionalKey(RepositoryJson)
}).annotate({ identifier: "DeployKey", description: "DeployKey a deploy key" })
export type DeployKeyJson = typeof DeployKeyJson.Type

/** `keysUrl`: the repository's `…/api/v1/repos/{owner}/{repo}/keys/`, which the key's id ends. */
export const toDeployKeyJson = (key: DeployKey, keysUrl: string, repository: RepositoryJson | undefined): DeployKeyJson => ({
  id: key.id,
  key_id: key.keyId,
  key: key.content,
  url: `${keysUrl}${key.id}`,
  title: key.title,
  fingerprint: key.fingerprint,
  created_at: rfc3339(key.createdAt),
  read_only: key.readOnly,
  ...(repository === undefined ? {} : { repository })
})
