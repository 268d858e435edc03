/** Spec 4.4: repositories by owner and name, search, and collaborators (api-facts §4.1–4.7). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiConflict,
  ApiForbidden,
  ApiInternalError,
  ApiMovedPermanentlyResponse,
  ApiNotFound,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { optionPayload } from "../wire/OptionSchema.ts"
import { RepoCollaboratorPermissionJson, RepositoryJson, SearchResultsJson } from "../wire/Repository.ts"
import { UserJson } from "../wire/User.ts"
import { API_PREFIX } from "./Paths.ts"
import { IntQuery, PagingQuery } from "./QueryParams.ts"

export const EditRepoOption = optionPayload("EditRepoOption", {
  name: { kind: "string" },
  description: { kind: "string" },
  website: { kind: "string" },
  private: { kind: "boolean" },
  template: { kind: "boolean" },
  has_issues: { kind: "boolean" },
  internal_tracker: {
    kind: "struct",
    description: "set this structure to configure internal issue tracker",
    fields: {
      enable_time_tracker: { kind: "boolean" },
      allow_only_contributors_to_track_time: { kind: "boolean" },
      enable_issue_dependencies: { kind: "boolean" }
    }
  },
  external_tracker: {
    kind: "struct",
    description: "set this structure to use external issue tracker",
    fields: {
      external_tracker_url: { kind: "string" },
      external_tracker_format: { kind: "string" },
      external_tracker_style: { kind: "string" },
      external_tracker_regexp_pattern: { kind: "string" }
    }
  },
  has_wiki: { kind: "boolean" },
  external_wiki: {
    kind: "struct",
    description: "set this structure to use external wiki instead of internal",
    fields: { external_wiki_url: { kind: "string" } }
  },
  globally_editable_wiki: { kind: "boolean" },
  default_branch: { kind: "string" },
  wiki_branch: { kind: "string" },
  has_pull_requests: { kind: "boolean" },
  has_projects: { kind: "boolean" },
  has_releases: { kind: "boolean" },
  has_packages: { kind: "boolean" },
  has_actions: { kind: "boolean" },
  ignore_whitespace_conflicts: { kind: "boolean" },
  allow_merge_commits: { kind: "boolean" },
  allow_rebase: { kind: "boolean" },
  allow_rebase_explicit: { kind: "boolean" },
  allow_squash_merge: { kind: "boolean" },
  allow_fast_forward_only_merge: { kind: "boolean" },
  allow_manual_merge: { kind: "boolean" },
  autodetect_manual_merge: { kind: "boolean" },
  allow_rebase_update: { kind: "boolean" },
  default_delete_branch_after_merge: { kind: "boolean" },
  default_merge_style: { kind: "string" },
  default_update_style: { kind: "string" },
  default_allow_maintainer_edit: { kind: "boolean" },
  archived: { kind: "boolean" },
  mirror_interval: { kind: "string" },
  enable_prune: { kind: "boolean" }
})

export const AddCollaboratorOption = optionPayload("AddCollaboratorOption", {
  permission: { kind: "string", description: "read, write or admin" }
})

const repoPath = { owner: Schema.String, repo: Schema.String }
const collaboratorPath = { ...repoPath, collaborator: Schema.String }
const Errors = [ApiUnauthorized, ApiForbidden, ApiNotFound, ApiValidationFailed, ApiInternalError] as const
/** Routes that name a repository: its old name after a rename answers 301. */
const RepoErrors = [...Errors, ApiMovedPermanentlyResponse] as const

export const SearchQuery = {
  q: Schema.optional(Schema.String),
  topic: Schema.optional(Schema.String),
  includeDesc: Schema.optional(Schema.String),
  uid: Schema.optional(IntQuery),
  priority_owner_id: Schema.optional(IntQuery),
  team_id: Schema.optional(IntQuery),
  starredBy: Schema.optional(IntQuery),
  private: Schema.optional(Schema.String),
  is_private: Schema.optional(Schema.String),
  template: Schema.optional(Schema.String),
  archived: Schema.optional(Schema.String),
  mode: Schema.optional(Schema.String),
  exclusive: Schema.optional(Schema.String),
  sort: Schema.optional(Schema.String),
  order: Schema.optional(Schema.String),
  ...PagingQuery
}

export class ReposApi extends HttpApiGroup.make("repository").add(
  HttpApiEndpoint.get("repoSearch", "/repos/search", {
    query: SearchQuery,
    success: SearchResultsJson,
    error: Errors
  }).annotate(OpenApi.Summary, "Search for repositories"),
  HttpApiEndpoint.get("repoGet", "/repos/:owner/:repo", {
    params: repoPath,
    success: RepositoryJson,
    error: RepoErrors
  }).annotate(OpenApi.Summary, "Get a repository"),
  HttpApiEndpoint.patch("repoEdit", "/repos/:owner/:repo", {
    params: repoPath,
    payload: EditRepoOption,
    success: RepositoryJson,
    error: [...RepoErrors, ApiConflict]
  }).annotate(OpenApi.Summary, "Edit a repository's properties. Only fields that are set will be changed."),
  HttpApiEndpoint.delete("repoDelete", "/repos/:owner/:repo", {
    params: repoPath,
    success: HttpApiSchema.NoContent,
    error: RepoErrors
  }).annotate(OpenApi.Summary, "Delete a repository"),
  HttpApiEndpoint.get("repoGetByID", "/repositories/:id", {
    params: { id: Schema.String },
    success: RepositoryJson,
    error: Errors
  }).annotate(OpenApi.Summary, "Get a repository by id"),
  HttpApiEndpoint.get("repoListCollaborators", "/repos/:owner/:repo/collaborators", {
    params: repoPath,
    query: PagingQuery,
    success: Schema.Array(UserJson),
    error: RepoErrors
  }).annotate(OpenApi.Summary, "List a repository's collaborators"),
  HttpApiEndpoint.get("repoCheckCollaborator", "/repos/:owner/:repo/collaborators/:collaborator", {
    params: collaboratorPath,
    success: HttpApiSchema.NoContent,
    error: RepoErrors
  }).annotate(OpenApi.Summary, "Check if a user is a collaborator of a repository"),
  HttpApiEndpoint.put("repoAddCollaborator", "/repos/:owner/:repo/collaborators/:collaborator", {
    params: collaboratorPath,
    payload: AddCollaboratorOption,
    success: HttpApiSchema.NoContent,
    error: RepoErrors
  }).annotate(OpenApi.Summary, "Add a collaborator to a repository"),
  HttpApiEndpoint.delete("repoDeleteCollaborator", "/repos/:owner/:repo/collaborators/:collaborator", {
    params: collaboratorPath,
    success: HttpApiSchema.NoContent,
    error: RepoErrors
  }).annotate(OpenApi.Summary, "Delete a collaborator from a repository"),
  HttpApiEndpoint.get("repoGetRepoPermissions", "/repos/:owner/:repo/collaborators/:collaborator/permission", {
    params: collaboratorPath,
    success: RepoCollaboratorPermissionJson,
    error: RepoErrors
  }).annotate(OpenApi.Summary, "Get repository permissions for a user")
).annotate(ScopeCategories, ["repository"]).prefix(API_PREFIX) {}
