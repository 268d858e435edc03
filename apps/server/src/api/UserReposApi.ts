/** The signed-in user's repositories and a user's repositories (api-facts §4.2, §0.7). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiBadRequest,
  ApiConflict,
  ApiForbidden,
  ApiInternalError,
  ApiNotFound,
  ApiQuotaExceeded,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { optionPayload } from "../wire/OptionSchema.ts"
import { RepositoryJson, RepositoryListJson } from "../wire/Repository.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"

export const CreateRepoOption = optionPayload("CreateRepoOption", {
  name: { kind: "string", required: true },
  description: { kind: "string" },
  private: { kind: "boolean" },
  issue_labels: { kind: "string" },
  auto_init: { kind: "boolean" },
  template: { kind: "boolean" },
  gitignores: { kind: "string" },
  license: { kind: "string" },
  readme: { kind: "string" },
  default_branch: { kind: "string" },
  trust_model: { kind: "string" },
  object_format_name: { kind: "string" }
})

export const CreateErrors = [
  ApiQuotaExceeded,
  ApiBadRequest,
  ApiUnauthorized,
  ApiForbidden,
  ApiNotFound,
  ApiConflict,
  ApiValidationFailed,
  ApiInternalError
] as const

export class UserReposApi extends HttpApiGroup.make("userRepos").add(
  HttpApiEndpoint.get("userCurrentListRepos", "/user/repos", {
    query: { order_by: Schema.optional(Schema.String), ...PagingQuery },
    success: RepositoryListJson,
    error: [ApiUnauthorized, ApiForbidden, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "List the repos that the authenticated user owns"),
  HttpApiEndpoint.post("createCurrentUserRepo", "/user/repos", {
    payload: CreateRepoOption,
    success: RepositoryJson.pipe(HttpApiSchema.status(201)),
    error: CreateErrors
  }).annotate(OpenApi.Summary, "Create a repository"),
  HttpApiEndpoint.get("userListRepos", "/users/:username/repos", {
    params: { username: Schema.String },
    query: PagingQuery,
    success: RepositoryListJson,
    error: [ApiForbidden, ApiNotFound]
  }).annotate(OpenApi.Summary, "List the repos owned by the given user")
).annotate(ScopeCategories, ["user", "repository"]).prefix(API_PREFIX) {}
