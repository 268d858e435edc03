/**
 * Commit statuses (api-facts §1.6, §4.8). The spec names `/commits/{ref}/statuses`
 * `repoGetCombinedStatusByRef` and answers the combined status there (Forgejo lists statuses at
 * that path): the spec wins; `/commits/{ref}/status` serves the same object.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiBadRequest,
  ApiForbidden,
  ApiInternalError,
  ApiMovedPermanentlyResponse,
  ApiNotFound,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { CombinedStatusJson, CommitStatusJson } from "../wire/CommitStatus.ts"
import { optionPayload } from "../wire/OptionSchema.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"

export const CreateStatusOption = optionPayload("CreateStatusOption", {
  state: { kind: "string", description: "pending, success, error, failure or warning" },
  target_url: { kind: "string" },
  description: { kind: "string" },
  context: { kind: "string" }
})

const shaPath = { owner: Schema.String, repo: Schema.String, sha: Schema.String }
const refPath = { owner: Schema.String, repo: Schema.String, ref: Schema.String }
const Errors = [
  ApiBadRequest, ApiUnauthorized, ApiForbidden, ApiNotFound, ApiValidationFailed, ApiInternalError,
  // An old name of a renamed repository.
  ApiMovedPermanentlyResponse
] as const

const ListQuery = {
  sort: Schema.optional(Schema.String.annotate({
    description: "oldest, recentupdate, leastupdate, leastindex or highestindex; newest first by default"
  })),
  state: Schema.optional(Schema.String.annotate({ description: "pending, success, error, failure or warning" })),
  ...PagingQuery
}

/** Past the last page of contexts Forgejo answers `null`. */
const Combined = Schema.NullOr(CombinedStatusJson)

export class CommitStatusesApi extends HttpApiGroup.make("repositoryStatuses").add(
  HttpApiEndpoint.post("repoCreateStatus", "/repos/:owner/:repo/statuses/:sha", {
    params: shaPath,
    payload: CreateStatusOption,
    success: CommitStatusJson.pipe(HttpApiSchema.status(201)),
    error: Errors
  }).annotate(OpenApi.Summary, "Create a commit status"),
  HttpApiEndpoint.get("repoListStatuses", "/repos/:owner/:repo/statuses/:sha", {
    params: shaPath,
    query: ListQuery,
    success: Schema.Array(CommitStatusJson),
    error: Errors
  }).annotate(OpenApi.Summary, "Get a commit's statuses"),
  HttpApiEndpoint.get("repoGetCombinedStatusByRef", "/repos/:owner/:repo/commits/:ref/statuses", {
    params: refPath,
    query: PagingQuery,
    success: Combined,
    error: Errors
  }).annotate(OpenApi.Summary, "Get a commit's combined status, by branch/tag/commit reference"),
  HttpApiEndpoint.get("repoGetCombinedStatus", "/repos/:owner/:repo/commits/:ref/status", {
    params: refPath,
    query: PagingQuery,
    success: Combined,
    error: Errors
  }).annotate(OpenApi.Summary, "Get a commit's combined status, by branch/tag/commit reference (Forgejo's path)")
).annotate(ScopeCategories, ["repository"]).prefix(API_PREFIX) {}
