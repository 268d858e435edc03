/**
 * What the hook routes of organizations and repositories share once their gates have passed: the
 * hook CRUD with Forgejo's statuses, and the delivery history. Built once per handler group.
 */
import { Effect } from "effect"
import type { Invalid, NotFound } from "@kiln/domain/errors"
import type { Webhook } from "@kiln/domain/org/Webhook"
import type { HookScope } from "@kiln/domain/org/WebhookStore"
import { WebhookDeliveries } from "@kiln/domain/webhook/WebhookDeliveries"
import { Webhooks } from "@kiln/domain/webhook/Webhooks"
import { ApiErrors } from "../http/ApiErrors.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { idParam } from "../http/TeamAssignment.ts"
import { toCreateHookBody, toEditHookBody, toHookJson } from "../wire/Hook.ts"
import { toHookDeliveryDetailJson, toHookDeliveryJson } from "../wire/HookDelivery.ts"

/** Forgejo answers this one check with 400; every other refusal of a hook body is 422. */
const SLACK_CHANNEL_MESSAGE = "Invalid slack channel name"

type PagingValues = { readonly page?: string | undefined; readonly limit?: string | undefined }

export const makeHookRequests = Effect.gen(function*() {
  const webhooks = yield* Webhooks
  const deliveries = yield* WebhookDeliveries
  const errors = yield* ApiErrors
  const refusal = (error: Invalid | NotFound) =>
    error._tag === "NotFound"
      ? errors.notFound()
      : error.message === SLACK_CHANNEL_MESSAGE
      ? errors.badRequest(error.message)
      : errors.validation(error.message)

  return {
    errors,
    list: (scope: HookScope, query: PagingValues) =>
      Effect.gen(function*() {
        const page = pageFromQuery(query)
        const result = yield* webhooks.list(scope, page)
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map(toHookJson)
      }),
    create: (scope: HookScope, payload: Parameters<typeof toCreateHookBody>[0]) =>
      Effect.map(Effect.mapError(webhooks.create(scope, toCreateHookBody(payload)), refusal), toHookJson),
    get: (scope: HookScope, id: string) =>
      Effect.map(Effect.mapError(webhooks.get(scope, idParam(id)), () => errors.notFound()), toHookJson),
    edit: (scope: HookScope, id: string, payload: Parameters<typeof toEditHookBody>[0]) =>
      Effect.map(Effect.mapError(webhooks.edit(scope, idParam(id), toEditHookBody(payload)), refusal), toHookJson),
    remove: (scope: HookScope, id: string) => Effect.mapError(webhooks.remove(scope, idParam(id)), () => errors.notFound()),
    listDeliveries: (hook: Webhook, query: PagingValues) =>
      Effect.gen(function*() {
        const page = pageFromQuery(query)
        const result = yield* deliveries.list(hook, page)
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map(toHookDeliveryJson)
      }),
    getDelivery: (hook: Webhook, id: string) =>
      Effect.map(Effect.mapError(deliveries.get(hook, idParam(id)), () => errors.notFound()), toHookDeliveryDetailJson),
    redeliver: (hook: Webhook, id: string) => Effect.mapError(deliveries.redeliver(hook, idParam(id)), () => errors.notFound())
  }
})
