/**
 * Deploy keys of a repository, for its admins (and site admins). [routers/api/v1/repo/key.go;
 * api.go: `/keys` under reqToken and reqAdmin, repository scope]
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiForbidden, ApiMovedPermanentlyResponse, ApiNotFound, ApiUnauthorized, ApiValidationFailed } from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { DeployKeyJson } from "../wire/DeployKey.ts"
import { CreateKeyOption } from "./AdminUsersApi.ts"
import { API_PREFIX } from "./Paths.ts"
import { IntQuery, PagingQuery } from "./QueryParams.ts"

const repoPath = { owner: Schema.String, repo: Schema.String }
const key = { ...repoPath, id: Schema.String.annotate({ format: "int64", description: "id of the key" }) }
const Errors = [ApiUnauthorized, ApiForbidden, ApiNotFound, ApiMovedPermanentlyResponse] as const

export class RepoKeysApi extends HttpApiGroup.make("repositoryKeys").add(
  HttpApiEndpoint.get("repoListKeys", "/repos/:owner/:repo/keys", {
    params: repoPath,
    query: {
      key_id: Schema.optional(IntQuery.annotate({ description: "the key_id to search for" })),
      fingerprint: Schema.optional(Schema.String.annotate({ description: "fingerprint of the key" })),
      ...PagingQuery
    },
    success: Schema.Array(DeployKeyJson),
    error: Errors
  }).annotate(OpenApi.Summary, "List a repository's keys"),
  HttpApiEndpoint.post("repoCreateKey", "/repos/:owner/:repo/keys", {
    params: repoPath,
    payload: CreateKeyOption,
    success: DeployKeyJson.pipe(HttpApiSchema.status(201)),
    error: [...Errors, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Add a key to a repository"),
  HttpApiEndpoint.get("repoGetKey", "/repos/:owner/:repo/keys/:id", {
    params: key,
    success: DeployKeyJson,
    error: Errors
  }).annotate(OpenApi.Summary, "Get a repository's key by id"),
  HttpApiEndpoint.delete("repoDeleteKey", "/repos/:owner/:repo/keys/:id", {
    params: key,
    success: HttpApiSchema.NoContent,
    error: Errors
  }).annotate(OpenApi.Summary, "Delete a key from a repository")
).annotate(ScopeCategories, ["repository"]).prefix(API_PREFIX) {}
