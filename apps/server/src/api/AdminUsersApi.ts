/** Spec 4.1: site administrators manage accounts and their keys. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiBadRequest, ApiForbidden, ApiNotFound, ApiUnauthorized, ApiValidationFailed } from "../http/ApiErrors.ts"
import { ApiConflict, ApiInternalError } from "../http/ApiErrors.ts"
import { SiteAdminGate } from "../http/SiteAdminGate.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { optionPayload } from "../wire/OptionSchema.ts"
import { PublicKeyJson } from "../wire/PublicKey.ts"
import { CreateOrgOption, OrganizationJson } from "../wire/Organization.ts"
import { UserJson } from "../wire/User.ts"
import { RepositoryJson } from "../wire/Repository.ts"
import { CreateRepoOption } from "./UserReposApi.ts"
import { API_PREFIX } from "./Paths.ts"
import { IntQuery, PagingQuery } from "./QueryParams.ts"

export const CreateUserOption = optionPayload("CreateUserOption", {
  username: { kind: "string", required: true },
  email: { kind: "string", required: true },
  password: { kind: "string" },
  full_name: { kind: "string" },
  login_name: { kind: "string" },
  source_id: { kind: "int" },
  must_change_password: { kind: "boolean", description: "defaults to true" },
  send_notify: { kind: "boolean" },
  restricted: { kind: "boolean" },
  visibility: { kind: "string" },
  created_at: { kind: "string", description: "RFC 3339; sets the creation and update time" }
})

export const EditUserOption = optionPayload("EditUserOption", {
  source_id: { kind: "int" },
  login_name: { kind: "string" },
  email: { kind: "string" },
  full_name: { kind: "string" },
  password: { kind: "string" },
  must_change_password: { kind: "boolean" },
  website: { kind: "string" },
  location: { kind: "string" },
  pronouns: { kind: "string" },
  description: { kind: "string" },
  active: { kind: "boolean" },
  admin: { kind: "boolean" },
  allow_git_hook: { kind: "boolean" },
  allow_import_local: { kind: "boolean" },
  max_repo_creation: { kind: "int" },
  prohibit_login: { kind: "boolean" },
  allow_create_organization: { kind: "boolean" },
  restricted: { kind: "boolean" },
  visibility: { kind: "string" }
})

export const CreateKeyOption = optionPayload("CreateKeyOption", {
  title: { kind: "string", required: true },
  key: { kind: "string", required: true },
  read_only: { kind: "boolean" }
})

const Gate = [ApiUnauthorized, ApiForbidden] as const
const username = { username: Schema.String }

export class AdminUsersApi extends HttpApiGroup.make("admin").add(
  HttpApiEndpoint.get("adminSearchUsers", "/admin/users", {
    query: {
      source_id: Schema.optional(IntQuery),
      login_name: Schema.optional(Schema.String),
      sort: Schema.optional(Schema.String),
      ...PagingQuery
    },
    success: Schema.Array(UserJson),
    error: [...Gate]
  }).annotate(OpenApi.Summary, "Search users according filter conditions"),
  HttpApiEndpoint.post("adminCreateUser", "/admin/users", {
    payload: CreateUserOption,
    success: UserJson.pipe(HttpApiSchema.status(201)),
    error: [...Gate, ApiBadRequest, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Create a user"),
  HttpApiEndpoint.patch("adminEditUser", "/admin/users/:username", {
    params: username,
    payload: EditUserOption,
    success: UserJson,
    error: [...Gate, ApiBadRequest, ApiNotFound, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Edit an existing user"),
  HttpApiEndpoint.delete("adminDeleteUser", "/admin/users/:username", {
    params: username,
    query: { purge: Schema.optional(Schema.String) },
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Delete a user"),
  HttpApiEndpoint.post("adminCreatePublicKey", "/admin/users/:username/keys", {
    params: username,
    payload: CreateKeyOption,
    success: PublicKeyJson.pipe(HttpApiSchema.status(201)),
    error: [...Gate, ApiNotFound, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Add a public key on behalf of a user"),
  HttpApiEndpoint.delete("adminDeleteUserPublicKey", "/admin/users/:username/keys/:id", {
    params: { username: Schema.String, id: Schema.String },
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound]
  }).annotate(OpenApi.Summary, "Delete a user's public key"),
  HttpApiEndpoint.post("adminCreateOrg", "/admin/users/:username/orgs", {
    params: username,
    payload: CreateOrgOption,
    success: OrganizationJson.pipe(HttpApiSchema.status(201)),
    error: [...Gate, ApiNotFound, ApiValidationFailed, ApiInternalError]
  }).annotate(OpenApi.Summary, "Create an organization"),
  HttpApiEndpoint.post("adminCreateRepo", "/admin/users/:username/repos", {
    params: username,
    payload: CreateRepoOption,
    success: RepositoryJson.pipe(HttpApiSchema.status(201)),
    error: [...Gate, ApiBadRequest, ApiNotFound, ApiConflict, ApiValidationFailed, ApiInternalError]
  }).annotate(OpenApi.Summary, "Create a repository on behalf of a user"),
  HttpApiEndpoint.get("adminGetAllOrgs", "/admin/orgs", {
    query: PagingQuery,
    success: Schema.Array(OrganizationJson),
    error: [...Gate]
  }).annotate(OpenApi.Summary, "List all organizations")
).middleware(SiteAdminGate).annotate(ScopeCategories, ["admin"]).prefix(API_PREFIX) {}
