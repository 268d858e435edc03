/** Spec 4.4 `repoGetEditorConfig` (api-facts §4.10): the EditorConfig definition of one file name. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import {
  ApiForbidden,
  ApiInternalError,
  ApiMovedPermanentlyResponse,
  ApiNotFound,
  ApiServiceUnavailable,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { API_PREFIX } from "./Paths.ts"

/** Forgejo's editorconfig Definition as JSON: only these four keys, each omitted when empty. */
export const EditorConfigDefinitionJson = Schema.Struct({
  charset: Schema.optionalKey(Schema.String),
  indent_style: Schema.optionalKey(Schema.String),
  indent_size: Schema.optionalKey(Schema.String),
  end_of_line: Schema.optionalKey(Schema.String)
})

export class EditorConfigApi extends HttpApiGroup.make("repositoryEditorConfig").add(
  HttpApiEndpoint.get("repoGetEditorConfig", "/repos/:owner/:repo/editorconfig/:filepath", {
    params: { owner: Schema.String, repo: Schema.String, filepath: Schema.String },
    query: { ref: Schema.optional(Schema.String.annotate({ description: "The name of the commit/branch/tag. Default the repository’s default branch (usually master)" })) },
    success: EditorConfigDefinitionJson,
    error: [ApiUnauthorized, ApiForbidden, ApiNotFound, ApiValidationFailed, ApiServiceUnavailable, ApiInternalError, ApiMovedPermanentlyResponse]
  }).annotate(OpenApi.Summary, "Get the EditorConfig definitions of a file in a repository")
).annotate(ScopeCategories, ["repository"]).prefix(API_PREFIX) {}
