/**
 * Webhooks of a repository, for its admins (and site admins): the same Hook JSON and rules as an
 * organization's, the hook test, and the delivery history. [routers/api/v1/repo/hook.go]
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  ApiBadRequest,
  ApiForbidden,
  ApiMovedPermanentlyResponse,
  ApiNotFound,
  ApiUnauthorized,
  ApiValidationFailed
} from "../http/ApiErrors.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { CreateHookOption, EditHookOption, HookJson } from "../wire/Hook.ts"
import * as Deliveries from "./HookDeliveriesApi.ts"
import { API_PREFIX } from "./Paths.ts"
import { PagingQuery } from "./QueryParams.ts"

const repoPath = { owner: Schema.String, repo: Schema.String }
const hook = { ...repoPath, id: Deliveries.hookIdParam }
const delivery = { ...hook, delivery_id: Deliveries.deliveryIdParam }
const Errors = [ApiUnauthorized, ApiForbidden, ApiNotFound, ApiMovedPermanentlyResponse] as const

export class RepoHooksApi extends HttpApiGroup.make("repositoryHooks").add(
  HttpApiEndpoint.get("repoListHooks", "/repos/:owner/:repo/hooks", {
    params: repoPath,
    query: PagingQuery,
    success: Schema.Array(HookJson),
    error: Errors
  }).annotate(OpenApi.Summary, "List the hooks in a repository"),
  HttpApiEndpoint.post("repoCreateHook", "/repos/:owner/:repo/hooks", {
    params: repoPath,
    payload: CreateHookOption,
    success: HookJson.pipe(HttpApiSchema.status(201)),
    error: [...Errors, ApiBadRequest, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Create a hook"),
  HttpApiEndpoint.get("repoGetHook", "/repos/:owner/:repo/hooks/:id", {
    params: hook,
    success: HookJson,
    error: Errors
  }).annotate(OpenApi.Summary, "Get a hook"),
  HttpApiEndpoint.patch("repoEditHook", "/repos/:owner/:repo/hooks/:id", {
    params: hook,
    payload: EditHookOption,
    success: HookJson,
    error: [...Errors, ApiValidationFailed]
  }).annotate(OpenApi.Summary, "Edit a hook in a repository"),
  HttpApiEndpoint.delete("repoDeleteHook", "/repos/:owner/:repo/hooks/:id", {
    params: hook,
    success: HttpApiSchema.NoContent,
    error: Errors
  }).annotate(OpenApi.Summary, "Delete a hook in a repository"),
  HttpApiEndpoint.post("repoTestHook", "/repos/:owner/:repo/hooks/:id/tests", {
    params: hook,
    query: { ref: Schema.optional(Schema.String.annotate({ description: "The name of the commit/branch/tag, indicates which commit will be loaded to the webhook payload." })) },
    success: HttpApiSchema.NoContent,
    error: Errors
  }).annotate(OpenApi.Summary, "Test a push webhook"),
  HttpApiEndpoint.get("repoListHookDeliveries", "/repos/:owner/:repo/hooks/:id/deliveries", {
    params: hook,
    ...Deliveries.listDeliveries,
    error: Errors
  }).annotate(OpenApi.Summary, Deliveries.LIST_SUMMARY),
  HttpApiEndpoint.get("repoGetHookDelivery", "/repos/:owner/:repo/hooks/:id/deliveries/:delivery_id", {
    params: delivery,
    ...Deliveries.getDelivery,
    error: Errors
  }).annotate(OpenApi.Summary, Deliveries.GET_SUMMARY),
  HttpApiEndpoint.post("repoRedeliverHookDelivery", "/repos/:owner/:repo/hooks/:id/deliveries/:delivery_id/attempts", {
    params: delivery,
    ...Deliveries.redeliver,
    error: Errors
  }).annotate(OpenApi.Summary, Deliveries.REDELIVER_SUMMARY)
).annotate(ScopeCategories, ["repository"]).prefix(API_PREFIX) {}
