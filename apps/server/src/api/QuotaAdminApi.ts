/**
 * Spec 4.6 and Forgejo's rule endpoints (api-facts §7.5): site administrators manage quota rules,
 * groups and who is in them, and read any account's quota. Option bodies are read by the handlers
 * (malformed JSON and a body that fails validation are both 422, as Forgejo binds them; 400 stays
 * declared as in the spec's table and Forgejo's description). Tagged "adminQuota": a second "admin"
 * group would repeat the tag in the description.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiBadRequest,
  ApiConflict,
  ApiForbidden,
  ApiNotFound,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { SiteAdminGate } from "../http/SiteAdminGate.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import {
  CreateQuotaGroupOptions,
  CreateQuotaRuleOptions,
  EditQuotaRuleOptions,
  QuotaGroupJson,
  QuotaInfoJson,
  QuotaRuleInfoJson,
  SetUserQuotaGroupsOptions
} from "../wire/Quota.ts"
import { UserJson } from "../wire/User.ts"
import { API_PREFIX } from "./Paths.ts"

const Gate = [ApiUnauthorized, ApiForbidden] as const
const quotarule = { quotarule: Schema.String }
const quotagroup = { quotagroup: Schema.String }

export class QuotaAdminApi extends HttpApiGroup.make("adminQuota").add(
  HttpApiEndpoint.get("adminListQuotaRules", "/admin/quota/rules", {
    success: Schema.Array(QuotaRuleInfoJson),
    error: [...Gate]
  }).annotate(OpenApi.Summary, "List the available quota rules"),
  HttpApiEndpoint.post("adminCreateQuotaRule", "/admin/quota/rules", {
    payload: CreateQuotaRuleOptions,
    success: QuotaRuleInfoJson.pipe(HttpApiSchema.status(201)),
    error: [...Gate, ApiBadRequest, ApiConflict, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Create a new quota rule"),
  HttpApiEndpoint.get("adminGetQuotaRule", "/admin/quota/rules/:quotarule", {
    params: quotarule,
    success: QuotaRuleInfoJson,
    error: [...Gate, ApiNotFound]
  }).annotate(OpenApi.Summary, "Get information about a quota rule"),
  HttpApiEndpoint.patch("adminEditQuotaRule", "/admin/quota/rules/:quotarule", {
    params: quotarule,
    payload: EditQuotaRuleOptions,
    success: QuotaRuleInfoJson,
    error: [...Gate, ApiBadRequest, ApiNotFound, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Change an existing quota rule"),
  // Forgejo's operationId really is spelled this way.
  HttpApiEndpoint.delete("adminDEleteQuotaRule", "/admin/quota/rules/:quotarule", {
    params: quotarule,
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound]
  }).annotate(OpenApi.Summary, "Deletes a quota rule"),
  HttpApiEndpoint.get("adminListQuotaGroups", "/admin/quota/groups", {
    success: Schema.Array(QuotaGroupJson),
    error: [...Gate]
  }).annotate(OpenApi.Summary, "List the available quota groups"),
  HttpApiEndpoint.post("adminCreateQuotaGroup", "/admin/quota/groups", {
    payload: CreateQuotaGroupOptions,
    success: QuotaGroupJson.pipe(HttpApiSchema.status(201)),
    error: [...Gate, ApiBadRequest, ApiConflict, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Create a new quota group"),
  HttpApiEndpoint.get("adminGetQuotaGroup", "/admin/quota/groups/:quotagroup", {
    params: quotagroup,
    success: QuotaGroupJson,
    error: [...Gate, ApiNotFound]
  }).annotate(OpenApi.Summary, "Get information about the quota group"),
  HttpApiEndpoint.delete("adminDeleteQuotaGroup", "/admin/quota/groups/:quotagroup", {
    params: quotagroup,
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound]
  }).annotate(OpenApi.Summary, "Delete a quota group"),
  HttpApiEndpoint.get("adminListUsersInQuotaGroup", "/admin/quota/groups/:quotagroup/users", {
    params: quotagroup,
    success: Schema.Array(UserJson),
    error: [...Gate, ApiNotFound]
  }).annotate(OpenApi.Summary, "List users in a quota group"),
  HttpApiEndpoint.put("adminAddUserToQuotaGroup", "/admin/quota/groups/:quotagroup/users/:username", {
    params: { quotagroup: Schema.String, username: Schema.String },
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound, ApiConflict]
  }).annotate(OpenApi.Summary, "Add a user to a quota group"),
  HttpApiEndpoint.delete("adminRemoveUserFromQuotaGroup", "/admin/quota/groups/:quotagroup/users/:username", {
    params: { quotagroup: Schema.String, username: Schema.String },
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound]
  }).annotate(OpenApi.Summary, "Remove a user from a quota group"),
  HttpApiEndpoint.put("adminAddRuleToQuotaGroup", "/admin/quota/groups/:quotagroup/rules/:quotarule", {
    params: { quotagroup: Schema.String, quotarule: Schema.String },
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound, ApiConflict]
  }).annotate(OpenApi.Summary, "Adds a rule to a quota group"),
  // Forgejo declares 201 here but answers 204; the description says what is answered.
  HttpApiEndpoint.delete("adminRemoveRuleFromQuotaGroup", "/admin/quota/groups/:quotagroup/rules/:quotarule", {
    params: { quotagroup: Schema.String, quotarule: Schema.String },
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiNotFound]
  }).annotate(OpenApi.Summary, "Removes a rule from a quota group"),
  HttpApiEndpoint.post("adminSetUserQuotaGroups", "/admin/users/:username/quota/groups", {
    params: { username: Schema.String },
    payload: SetUserQuotaGroupsOptions,
    success: HttpApiSchema.NoContent,
    error: [...Gate, ApiBadRequest, ApiNotFound, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Set the user's quota groups to a given list."),
  HttpApiEndpoint.get("adminGetUserQuota", "/admin/users/:username/quota", {
    params: { username: Schema.String },
    success: QuotaInfoJson,
    error: [...Gate, ApiNotFound]
  }).annotate(OpenApi.Summary, "Get the user's quota info")
).middleware(SiteAdminGate).annotate(ScopeCategories, ["admin"]).prefix(API_PREFIX) {}
