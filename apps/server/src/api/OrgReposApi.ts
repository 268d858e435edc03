/** An organization's repositories (api-facts §5.5) and repository creation in organizations (§4.2). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiForbidden, ApiNotFound } from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { RepositoryJson, RepositoryListJson } from "../wire/Repository.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"
import { CreateErrors, CreateRepoOption } from "./UserReposApi.ts"

const org = { org: Schema.String }

export class OrgReposApi extends HttpApiGroup.make("orgRepos").add(
  HttpApiEndpoint.get("orgListRepos", "/orgs/:org/repos", {
    params: org,
    query: PagingQuery,
    success: RepositoryListJson,
    error: [ApiForbidden, ApiNotFound]
  }).annotate(OpenApi.Summary, "List an organization's repos"),
  HttpApiEndpoint.post("createOrgRepo", "/orgs/:org/repos", {
    params: org,
    payload: CreateRepoOption,
    success: RepositoryJson.pipe(HttpApiSchema.status(201)),
    error: CreateErrors
  }).annotate(OpenApi.Summary, "Create a repository in an organization"),
  HttpApiEndpoint.post("createOrgRepoDeprecated", "/org/:org/repos", {
    params: org,
    payload: CreateRepoOption,
    success: RepositoryJson.pipe(HttpApiSchema.status(201)),
    error: CreateErrors
  }).annotate(ScopeCategories, ["repository"]).annotate(OpenApi.Summary, "Create a repository in an organization")
    .annotate(OpenApi.Deprecated, true)
).annotate(ScopeCategories, ["organization"]).prefix(API_PREFIX) {}
