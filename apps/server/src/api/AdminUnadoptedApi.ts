/** Unadopted repositories (issue 20): directories without a row, for site administrators. */
import { Schema } from "effect"
import { MAX_GLOB_LENGTH } from "@kiln/domain/repo/NameGlob"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiForbidden, ApiInternalError, ApiNotFound, ApiUnauthorized } from "../http/ApiErrors.ts"
import { SiteAdminGate } from "../http/SiteAdminGate.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"

const Gate = [ApiUnauthorized, ApiForbidden] as const
/** Matching costs pattern × name: longer patterns are refused (422). */
const Pattern = Schema.String.check(Schema.isMaxLength(MAX_GLOB_LENGTH))
const params = {
  owner: Schema.String.annotate({ description: "owner of the repo" }),
  repo: Schema.String.annotate({ description: "name of the repo" })
}

export class AdminUnadoptedApi extends HttpApiGroup.make("adminUnadopted").add(
  HttpApiEndpoint.get("adminUnadoptedList", "/admin/unadopted", {
    query: {
      ...PagingQuery,
      pattern: Schema.optional(Pattern.annotate({ description: "pattern of repositories to search for (`owner-glob/name-glob`)" })),
      // What Forgejo's handler reads, kept for its clients; `pattern` wins.
      query: Schema.optional(Pattern.annotate({ description: "the same as pattern (read by Forgejo's handler)" }))
    },
    success: Schema.Array(Schema.String),
    error: [...Gate, ApiInternalError]
  }).annotate(OpenApi.Summary, "List unadopted repositories"),
  HttpApiEndpoint.post("adminAdoptRepository", "/admin/unadopted/:owner/:repo", {
    params,
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound, ApiInternalError]
  }).annotate(OpenApi.Summary, "Adopt unadopted files as a repository"),
  HttpApiEndpoint.delete("adminDeleteUnadoptedRepository", "/admin/unadopted/:owner/:repo", {
    params,
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound, ApiInternalError]
  }).annotate(OpenApi.Summary, "Delete unadopted files")
).middleware(SiteAdminGate).annotate(ScopeCategories, ["admin"]).prefix(API_PREFIX) {}
