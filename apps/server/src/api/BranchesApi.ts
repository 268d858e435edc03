/** Branches of a repository (api-facts §4.6) and the repository's signing key (§6). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiConflict,
  ApiForbidden,
  ApiInternalError,
  ApiLocked,
  ApiMovedPermanentlyResponse,
  ApiNotFound,
  ApiPayloadTooLarge,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { BranchJson } from "../wire/Branch.ts"
import { optionPayload } from "../wire/OptionSchema.ts"
import { ArmoredPublicKey } from "./MiscApi.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"

export const CreateBranchRepoOption = optionPayload("CreateBranchRepoOption", {
  new_branch_name: { kind: "string", description: "Name of the branch to create (required)" },
  old_branch_name: { kind: "string", description: "Deprecated: true\nName of the old branch to create from" },
  old_ref_name: { kind: "string", description: "Name of the old branch/tag/commit to create from" }
})

const repoPath = { owner: Schema.String, repo: Schema.String }
/**
 * A branch name takes the rest of the path (names may contain `/`): its first segment and the
 * remainder. `/branches/*` alone cannot be declared: the router would also register it as
 * `/branches`, which the listing holds.
 */
const branchPath = { ...repoPath, branch: Schema.String, "*": Schema.optional(Schema.String) }
const Errors = [
  ApiUnauthorized, ApiForbidden, ApiNotFound, ApiValidationFailed, ApiInternalError,
  // An old name of a renamed repository.
  ApiMovedPermanentlyResponse
] as const

export class BranchesApi extends HttpApiGroup.make("repositoryBranches").add(
  HttpApiEndpoint.get("repoListBranches", "/repos/:owner/:repo/branches", {
    params: repoPath,
    query: PagingQuery,
    // An empty repository answers `null`, as Forgejo does.
    success: Schema.NullOr(Schema.Array(BranchJson)),
    error: Errors
  }).annotate(OpenApi.Summary, "List a repository's branches"),
  HttpApiEndpoint.get("repoGetBranch", "/repos/:owner/:repo/branches/:branch/*", {
    params: branchPath,
    success: BranchJson,
    error: Errors
  }).annotate(OpenApi.Summary, "Retrieve a specific branch from a repository, including its effective branch protection"),
  HttpApiEndpoint.post("repoCreateBranch", "/repos/:owner/:repo/branches", {
    params: repoPath,
    payload: CreateBranchRepoOption,
    success: BranchJson.pipe(HttpApiSchema.status(201)),
    error: [...Errors, ApiConflict, ApiPayloadTooLarge, ApiLocked]
  }).annotate(OpenApi.Summary, "Create a branch"),
  HttpApiEndpoint.delete("repoDeleteBranch", "/repos/:owner/:repo/branches/:branch/*", {
    params: branchPath,
    success: HttpApiSchema.NoContent,
    error: [...Errors, ApiLocked]
  }).annotate(OpenApi.Summary, "Delete a specific branch from a repository"),
  HttpApiEndpoint.get("repoSigningKey", "/repos/:owner/:repo/signing-key.gpg", {
    params: repoPath,
    success: ArmoredPublicKey,
    error: Errors
  }).annotate(OpenApi.Summary, "Get signing-key.gpg for given repository")
).annotate(ScopeCategories, ["repository"]).prefix(API_PREFIX) {}
