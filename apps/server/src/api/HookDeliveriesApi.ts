/**
 * What the delivery history routes of organization and repository hooks share: their path
 * parameters and answers (GitHub's shape). Each route takes the gates of the hooks it is beside.
 */
import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"
import { ApiNotFound } from "../http/ApiErrors.ts"
import { HookDeliveryDetailJson, HookDeliveryJson } from "../wire/HookDelivery.ts"
import { PagingQuery } from "./QueryParams.ts"

export const hookIdParam = Schema.String.annotate({ format: "int64", description: "id of the hook" })
export const deliveryIdParam = Schema.String.annotate({ format: "int64", description: "id of the delivery" })

export const listDeliveries = { query: PagingQuery, success: Schema.Array(HookDeliveryJson), error: ApiNotFound } as const
export const getDelivery = { success: HookDeliveryDetailJson, error: ApiNotFound } as const
export const redeliver = { success: HttpApiSchema.Accepted, error: ApiNotFound } as const

export const LIST_SUMMARY = "List a hook's deliveries, newest first"
export const GET_SUMMARY = "Get a delivery with its latest attempt's request and response"
export const REDELIVER_SUMMARY = "Send a delivery again now, with the same guid"
