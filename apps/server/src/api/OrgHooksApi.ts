/** Webhooks of an organization and their deliveries, for its owners (api-facts §5.4), in the "organization" group. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiBadRequest, ApiNotFound, ApiValidationFailed } from "../http/ApiErrors.ts"
import { OrgAssignment, OrgGate } from "../http/OrgAssignment.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { CreateHookOption, EditHookOption, HookJson } from "../wire/Hook.ts"
import { PagingQuery } from "./QueryParams.ts"
import * as Deliveries from "./HookDeliveriesApi.ts"

const org = { org: Schema.String }
const hook = { ...org, id: Deliveries.hookIdParam }
const delivery = { ...hook, delivery_id: Deliveries.deliveryIdParam }

export const OrgHookEndpoints = [
  HttpApiEndpoint.get("orgListHooks", "/orgs/:org/hooks", {
    params: org,
    query: PagingQuery,
    success: Schema.Array(HookJson)
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "List an organization's webhooks"),
  HttpApiEndpoint.post("orgCreateHook", "/orgs/:org/hooks", {
    params: org,
    payload: CreateHookOption,
    success: HookJson.pipe(HttpApiSchema.status(201)),
    error: [ApiBadRequest, ApiValidationFailed]
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Create a hook"),
  HttpApiEndpoint.get("orgGetHook", "/orgs/:org/hooks/:id", {
    params: hook,
    success: HookJson,
    error: ApiNotFound
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Get a hook"),
  HttpApiEndpoint.patch("orgEditHook", "/orgs/:org/hooks/:id", {
    params: hook,
    payload: EditHookOption,
    success: HookJson,
    error: [ApiNotFound, ApiValidationFailed]
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Update a hook"),
  HttpApiEndpoint.delete("orgDeleteHook", "/orgs/:org/hooks/:id", {
    params: hook,
    success: HttpApiSchema.NoContent,
    error: ApiNotFound
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Delete a hook"),
  HttpApiEndpoint.get("orgListHookDeliveries", "/orgs/:org/hooks/:id/deliveries", { params: hook, ...Deliveries.listDeliveries })
    .middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, Deliveries.LIST_SUMMARY),
  HttpApiEndpoint.get("orgGetHookDelivery", "/orgs/:org/hooks/:id/deliveries/:delivery_id", { params: delivery, ...Deliveries.getDelivery })
    .middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, Deliveries.GET_SUMMARY),
  HttpApiEndpoint.post("orgRedeliverHookDelivery", "/orgs/:org/hooks/:id/deliveries/:delivery_id/attempts", {
    params: delivery,
    ...Deliveries.redeliver
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, Deliveries.REDELIVER_SUMMARY)
] as const
