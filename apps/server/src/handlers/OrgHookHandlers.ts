/** Webhooks of an organization and their deliveries: the "organization" group's hook endpoints (owners only, see OrgsApi). */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Webhooks } from "@kiln/domain/webhook/Webhooks"
import { Api } from "../api/Api.ts"
import { RouteOrganization } from "../http/OrgAssignment.ts"
import { idParam } from "../http/TeamAssignment.ts"
import { makeHookRequests } from "./HookRequests.ts"

const scopeOf = Effect.map(RouteOrganization, (organization) => ({ kind: "owner", ownerId: organization.id }) as const)

export const OrgHookHandlers = Effect.gen(function*() {
  const hooks = yield* makeHookRequests
  const webhooks = yield* Webhooks
  const hookOf = (params: { readonly id: string }) =>
    Effect.flatMap(scopeOf, (scope) => Effect.mapError(webhooks.get(scope, idParam(params.id)), () => hooks.errors.notFound()))

  return {
    orgListHooks: HttpApiBuilder.handler(Api, "organization", "orgListHooks", ({ query }) =>
      Effect.flatMap(scopeOf, (scope) => hooks.list(scope, query))),
    orgCreateHook: HttpApiBuilder.handler(Api, "organization", "orgCreateHook", ({ payload }) =>
      Effect.flatMap(scopeOf, (scope) => hooks.create(scope, payload))),
    orgGetHook: HttpApiBuilder.handler(Api, "organization", "orgGetHook", ({ params }) =>
      Effect.flatMap(scopeOf, (scope) => hooks.get(scope, params.id))),
    orgEditHook: HttpApiBuilder.handler(Api, "organization", "orgEditHook", ({ params, payload }) =>
      Effect.flatMap(scopeOf, (scope) => hooks.edit(scope, params.id, payload))),
    orgDeleteHook: HttpApiBuilder.handler(Api, "organization", "orgDeleteHook", ({ params }) =>
      Effect.flatMap(scopeOf, (scope) => hooks.remove(scope, params.id))),
    orgListHookDeliveries: HttpApiBuilder.handler(Api, "organization", "orgListHookDeliveries", ({ params, query }) =>
      Effect.flatMap(hookOf(params), (hook) => hooks.listDeliveries(hook, query))),
    orgGetHookDelivery: HttpApiBuilder.handler(Api, "organization", "orgGetHookDelivery", ({ params }) =>
      Effect.flatMap(hookOf(params), (hook) => hooks.getDelivery(hook, params.delivery_id))),
    orgRedeliverHookDelivery: HttpApiBuilder.handler(Api, "organization", "orgRedeliverHookDelivery", ({ params }) =>
      Effect.flatMap(hookOf(params), (hook) => hooks.redeliver(hook, params.delivery_id)))
  }
})
