/** Spec 4.4 `repoMigrate` (api-facts §4.12): a repository cloned from a remote git repository. */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiConflict,
  ApiForbidden,
  ApiInternalError,
  ApiQuotaExceeded,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { optionPayload } from "../wire/OptionSchema.ts"
import { RepositoryJson } from "../wire/Repository.ts"
import { API_PREFIX } from "./Paths.ts"

/** Forgejo's MigrateRepoOptions; issues, labels, releases and wiki are accepted and not migrated; LFS objects are with `lfs`. */
export const MigrateRepoOptions = optionPayload("MigrateRepoOptions", {
  clone_addr: { kind: "string", required: true },
  repo_name: { kind: "string", required: true },
  repo_owner: { kind: "string", description: "Name of User or Organisation who will own Repo after migration" },
  uid: { kind: "int", description: "deprecated (only for backwards compatibility)" },
  service: { kind: "string" },
  auth_username: { kind: "string" },
  auth_password: { kind: "string" },
  auth_token: { kind: "string" },
  mirror: { kind: "boolean" },
  mirror_interval: { kind: "string" },
  private: { kind: "boolean" },
  description: { kind: "string" },
  wiki: { kind: "boolean" },
  milestones: { kind: "boolean" },
  labels: { kind: "boolean" },
  issues: { kind: "boolean" },
  pull_requests: { kind: "boolean" },
  releases: { kind: "boolean" },
  lfs: { kind: "boolean" },
  lfs_endpoint: { kind: "string" }
})

export class MigrateApi extends HttpApiGroup.make("repositoryMigrate").add(
  HttpApiEndpoint.post("repoMigrate", "/repos/migrate", {
    payload: MigrateRepoOptions,
    success: RepositoryJson.pipe(HttpApiSchema.status(201)),
    error: [ApiUnauthorized, ApiForbidden, ApiConflict, ApiValidationFailed, ApiInternalError, ApiQuotaExceeded]
  }).annotate(OpenApi.Summary, "Migrate a remote git repository")
).annotate(ScopeCategories, ["repository"]).prefix(API_PREFIX) {}
