/**
 * Spec 4.3: organizations, their members, teams and webhooks (api-facts §5), one group tagged
 * "organization" as in Forgejo. Scope categories are declared per endpoint: `GET /orgs` checks none
 * (Forgejo registers its check after the handler), `/user/orgs` and `/users/{u}/orgs` need user and
 * organization, everything else organization (api-facts §0.3).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiForbidden, ApiNotFound, ApiUnauthorized, ApiValidationFailed } from "../http/ApiErrors.ts"
import { HidesInvisibleOrg, OrgAssignment, OrgGate } from "../http/OrgAssignment.ts"
import { SignedInGate } from "../http/SignedInGate.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { CreateOrgOption, EditOrgOption, OrganizationJson } from "../wire/Organization.ts"
import { UserJson } from "../wire/User.ts"
import { OrgHookEndpoints } from "./OrgHooksApi.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"
import { TeamEndpoints } from "./TeamsApi.ts"

const org = { org: Schema.String }
const orgUser = { org: Schema.String, username: Schema.String }

const OrganizationEndpoints = [
  HttpApiEndpoint.get("orgGetAll", "/orgs", {
    query: PagingQuery,
    success: Schema.Array(OrganizationJson)
  }).annotate(OpenApi.Summary, "Get list of organizations"),
  HttpApiEndpoint.post("orgCreate", "/orgs", {
    payload: CreateOrgOption,
    success: OrganizationJson.pipe(HttpApiSchema.status(201)),
    error: [ApiForbidden, ApiValidationFailed]
  }).middleware(SignedInGate).annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Create an organization"),
  HttpApiEndpoint.get("orgListCurrentUserOrgs", "/user/orgs", {
    query: PagingQuery,
    success: Schema.Array(OrganizationJson),
    error: [ApiUnauthorized, ApiForbidden]
  }).annotate(ScopeCategories, ["user", "organization"]).annotate(OpenApi.Summary, "List the current user's organizations"),
  HttpApiEndpoint.get("orgListUserOrgs", "/users/:username/orgs", {
    params: { username: Schema.String },
    query: PagingQuery,
    success: Schema.Array(OrganizationJson),
    error: [ApiUnauthorized, ApiForbidden, ApiNotFound]
  }).annotate(ScopeCategories, ["user", "organization"]).annotate(OpenApi.Summary, "List a user's organizations"),
  HttpApiEndpoint.get("orgGet", "/orgs/:org", {
    params: org,
    success: OrganizationJson
  }).middleware(OrgAssignment).annotate(HidesInvisibleOrg, true)
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Get an organization"),
  HttpApiEndpoint.patch("orgEdit", "/orgs/:org", {
    params: org,
    payload: EditOrgOption,
    success: OrganizationJson,
    error: ApiValidationFailed
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Edit an organization"),
  HttpApiEndpoint.delete("orgDelete", "/orgs/:org", {
    params: org,
    success: HttpApiSchema.NoContent,
    error: ApiValidationFailed
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Delete an organization"),
  HttpApiEndpoint.get("orgListMembers", "/orgs/:org/members", {
    params: org,
    query: PagingQuery,
    success: Schema.Array(UserJson)
  }).middleware(OrgAssignment).annotate(OrgGate, ["token"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "List an organization's members"),
  HttpApiEndpoint.get("orgIsMember", "/orgs/:org/members/:username", {
    params: orgUser,
    success: [HttpApiSchema.NoContent, HttpApiSchema.Empty(303).annotate({
      description: "redirection to /orgs/{org}/public_members/{username}"
    })],
    error: ApiNotFound
  }).middleware(OrgAssignment).annotate(OrgGate, ["token"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Check if a user is a member of an organization"),
  HttpApiEndpoint.delete("orgDeleteMember", "/orgs/:org/members/:username", {
    params: orgUser,
    success: HttpApiSchema.NoContent,
    error: [ApiNotFound, ApiValidationFailed]
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Remove a member from an organization"),
  HttpApiEndpoint.get("orgListPublicMembers", "/orgs/:org/public_members", {
    params: org,
    query: PagingQuery,
    success: Schema.Array(UserJson)
  }).middleware(OrgAssignment).annotate(ScopeCategories, ["organization"])
    .annotate(OpenApi.Summary, "List an organization's public members"),
  HttpApiEndpoint.get("orgIsPublicMember", "/orgs/:org/public_members/:username", {
    params: orgUser,
    success: HttpApiSchema.NoContent,
    error: ApiNotFound
  }).middleware(OrgAssignment).annotate(ScopeCategories, ["organization"])
    .annotate(OpenApi.Summary, "Check if a user is a public member of an organization"),
  HttpApiEndpoint.put("orgPublicizeMember", "/orgs/:org/public_members/:username", {
    params: orgUser,
    success: HttpApiSchema.NoContent,
    error: ApiNotFound
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "member"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Publicize a user's membership"),
  HttpApiEndpoint.delete("orgConcealMember", "/orgs/:org/public_members/:username", {
    params: orgUser,
    success: HttpApiSchema.NoContent,
    error: ApiNotFound
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "member"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Conceal a user's membership")
] as const

export class OrgsApi extends HttpApiGroup.make("organization").add(
  ...OrganizationEndpoints,
  ...TeamEndpoints,
  ...OrgHookEndpoints
).prefix(API_PREFIX) {}
