/** Spec 4.4 `listForks`, `createFork` (api-facts §4.11). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiConflict,
  ApiForbidden,
  ApiInternalError,
  ApiMovedPermanentlyResponse,
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

export const CreateForkOption = optionPayload("CreateForkOption", {
  organization: { kind: "string", description: "organization name, if forking into an organization" },
  name: { kind: "string", description: "name of the forked repository" }
})

const repoPath = { owner: Schema.String, repo: Schema.String }
const Errors = [
  ApiUnauthorized, ApiForbidden, ApiNotFound, ApiValidationFailed, ApiInternalError,
  // An old name of a renamed repository.
  ApiMovedPermanentlyResponse
] as const

export class ForkApi extends HttpApiGroup.make("repositoryFork").add(
  HttpApiEndpoint.get("listForks", "/repos/:owner/:repo/forks", {
    params: repoPath,
    query: PagingQuery,
    success: RepositoryListJson,
    error: Errors
  }).annotate(OpenApi.Summary, "List a repository's forks"),
  HttpApiEndpoint.post("createFork", "/repos/:owner/:repo/forks", {
    params: repoPath,
    payload: CreateForkOption,
    success: RepositoryJson.pipe(HttpApiSchema.status(202)),
    error: [...Errors, ApiConflict, ApiQuotaExceeded]
  }).annotate(OpenApi.Summary, "Fork a repository")
).annotate(ScopeCategories, ["repository"]).prefix(API_PREFIX) {}
