/**
 * Spec 4.7: an organization's quota usage, groups, over-quota check and asset lists, for its owners
 * and site admins (organization scope). OrgAssignment resolves the organization and applies the gates
 * in Forgejo's order: unknown or hidden organization 404, anonymous 401, not an owner 403.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ApiForbidden, ApiNotFound, ApiUnauthorized, ApiValidationFailed } from "../http/ApiErrors.ts"
import { OrgAssignment, OrgGate } from "../http/OrgAssignment.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { QuotaInfoJson, QuotaUsedArtifactJson, QuotaUsedAttachmentJson, QuotaUsedPackageJson } from "../wire/Quota.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"
import { checkDescription, subjectQuery } from "./QuotaUsageApi.ts"

const org = { org: Schema.String }
const OrgErrors = [ApiUnauthorized, ApiForbidden, ApiNotFound] as const

export class OrgQuotaApi extends HttpApiGroup.make("organizationQuota").add(
  HttpApiEndpoint.get("orgGetQuota", "/orgs/:org/quota", {
    params: org,
    success: QuotaInfoJson,
    error: [...OrgErrors]
  }).annotate(OpenApi.Summary, "Get quota information for an organization"),
  HttpApiEndpoint.get("orgCheckQuota", "/orgs/:org/quota/check", {
    params: org,
    query: subjectQuery,
    success: Schema.Boolean,
    error: [...OrgErrors, ApiValidationFailed]
  }).annotateMerge(OpenApi.annotations({
    summary: "Check if the organization is over quota for a given subject",
    description: checkDescription("the organization")
  })),
  HttpApiEndpoint.get("orgListQuotaAttachments", "/orgs/:org/quota/attachments", {
    params: org,
    query: PagingQuery,
    success: Schema.Array(QuotaUsedAttachmentJson),
    error: [...OrgErrors]
  }).annotate(OpenApi.Summary, "List the attachments affecting the organization's quota"),
  HttpApiEndpoint.get("orgListQuotaPackages", "/orgs/:org/quota/packages", {
    params: org,
    query: PagingQuery,
    success: Schema.Array(QuotaUsedPackageJson),
    error: [...OrgErrors]
  }).annotate(OpenApi.Summary, "List the packages affecting the organization's quota"),
  HttpApiEndpoint.get("orgListQuotaArtifacts", "/orgs/:org/quota/artifacts", {
    params: org,
    query: PagingQuery,
    success: Schema.Array(QuotaUsedArtifactJson),
    error: [...OrgErrors]
  }).annotate(OpenApi.Summary, "List the artifacts affecting the organization's quota")
).middleware(OrgAssignment).annotateEndpoints(OrgGate, ["token", "owner"]).annotate(ScopeCategories, ["organization"])
  .prefix(API_PREFIX) {}
