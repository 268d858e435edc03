/** Webhooks of an organization: the "organization" group's hook endpoints (owners only, see OrgsApi). */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { OrgWebhooks } from "@kiln/domain/org/OrgWebhooks"
import type { Invalid, NotFound } from "@kiln/domain/errors"
import { Api } from "../api/Api.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { RouteOrganization } from "../http/OrgAssignment.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { idParam } from "../http/TeamAssignment.ts"
import { toCreateHookBody, toEditHookBody, toHookJson } from "../wire/Hook.ts"

/** Forgejo answers this one check with 400; every other refusal of a hook body is 422. */
const SLACK_CHANNEL_MESSAGE = "Invalid slack channel name"

export const OrgHookHandlers = Effect.gen(function*() {
  const webhooks = yield* OrgWebhooks
  const errors = yield* ApiErrors
  const refusal = (error: Invalid | NotFound) =>
    error._tag === "NotFound"
      ? errors.notFound()
      : error.message === SLACK_CHANNEL_MESSAGE
      ? errors.badRequest(error.message)
      : errors.validation(error.message)

  return {
    orgListHooks: HttpApiBuilder.handler(Api, "organization", "orgListHooks", ({ query }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const page = pageFromQuery(query)
        const result = yield* webhooks.list(organization, page)
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map(toHookJson)
      })),
    orgCreateHook: HttpApiBuilder.handler(Api, "organization", "orgCreateHook", ({ payload }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const hook = yield* Effect.mapError(webhooks.create(organization, toCreateHookBody(payload)), refusal)
        return toHookJson(hook)
      })),
    orgGetHook: HttpApiBuilder.handler(Api, "organization", "orgGetHook", ({ params }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const hook = yield* Effect.mapError(webhooks.get(organization, idParam(params.id)), () => errors.notFound())
        return toHookJson(hook)
      })),
    orgEditHook: HttpApiBuilder.handler(Api, "organization", "orgEditHook", ({ params, payload }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const hook = yield* Effect.mapError(webhooks.edit(organization, idParam(params.id), toEditHookBody(payload)), refusal)
        return toHookJson(hook)
      })),
    orgDeleteHook: HttpApiBuilder.handler(Api, "organization", "orgDeleteHook", ({ params }) =>
      Effect.flatMap(RouteOrganization, (organization) =>
        Effect.mapError(webhooks.remove(organization, idParam(params.id)), () => errors.notFound())))
  }
})
