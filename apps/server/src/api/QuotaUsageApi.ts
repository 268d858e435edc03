/**
 * The signed-in user's analogues of spec 4.7 (api-facts §7.6): the user's quota usage, groups, the
 * over-quota check and the items behind the asset usage, for any signed-in caller (user scope).
 * These only report: nothing is refused anywhere because of quota.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { subjects } from "@kiln/domain/quota/Subject"
import { ApiForbidden, ApiUnauthorized, ApiValidationFailed } from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { QuotaInfoJson, QuotaUsedArtifactJson, QuotaUsedAttachmentJson, QuotaUsedPackageJson } from "../wire/Quota.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"

/** The spec's reading, which Forgejo inverts: the description must say which one Kiln serves. */
export const checkDescription = (owner: string) =>
  `Answers \`true\` when ${owner} is OVER quota for the subject and \`false\` when within it ` +
  `(spec 4.7: "whether the organization is over quota"). Forgejo answers the opposite value. ` +
  `\`size:wiki\` is never over quota; an owner without quota groups (assigned or default) is never over quota. ` +
  `The subject is one of: ${subjects.join(", ")}; any other value is 422.`

export const subjectQuery = {
  subject: Schema.optional(Schema.String.annotate({ description: "the quota subject to check" }))
}

const Signed = [ApiUnauthorized, ApiForbidden] as const

export class UserQuotaApi extends HttpApiGroup.make("userQuota").add(
  HttpApiEndpoint.get("userGetQuota", "/user/quota", {
    success: QuotaInfoJson,
    error: [...Signed]
  }).annotate(OpenApi.Summary, "Get quota information for the authenticated user"),
  HttpApiEndpoint.get("userCheckQuota", "/user/quota/check", {
    query: subjectQuery,
    success: Schema.Boolean,
    error: [...Signed, ApiValidationFailed]
  }).annotateMerge(OpenApi.annotations({
    summary: "Check if the authenticated user is over quota for a given subject",
    description: checkDescription("the authenticated user")
  })),
  HttpApiEndpoint.get("userListQuotaAttachments", "/user/quota/attachments", {
    query: PagingQuery,
    success: Schema.Array(QuotaUsedAttachmentJson),
    error: [...Signed]
  }).annotate(OpenApi.Summary, "List the attachments affecting the authenticated user's quota"),
  HttpApiEndpoint.get("userListQuotaPackages", "/user/quota/packages", {
    query: PagingQuery,
    success: Schema.Array(QuotaUsedPackageJson),
    error: [...Signed]
  }).annotate(OpenApi.Summary, "List the packages affecting the authenticated user's quota"),
  HttpApiEndpoint.get("userListQuotaArtifacts", "/user/quota/artifacts", {
    query: PagingQuery,
    success: Schema.Array(QuotaUsedArtifactJson),
    error: [...Signed]
  }).annotate(OpenApi.Summary, "List the artifacts affecting the authenticated user's quota")
).annotate(ScopeCategories, ["user"]).prefix(API_PREFIX) {}
