/**
 * Webhooks of an organization (api-facts §5.4); the routes are for owners (the HTTP layer gates).
 * [routers/api/v1/org/hook.go, routers/api/v1/utils/hook.go]
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { type Invalid, NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { User } from "../user/User.ts"
import {
  applyHookEdit,
  type CreateHookBody,
  type EditHookBody,
  parseHookDraft,
  type Webhook,
  webhookNotFoundMessage
} from "./Webhook.ts"
import { WebhookStore } from "./WebhookStore.ts"

export class OrgWebhooks extends Context.Service<OrgWebhooks, {
  /** `GET /orgs/{org}/hooks`: by id; `total` for X-Total-Count. */
  readonly list: (organization: User, page: PageRequest) => Effect.Effect<Page<Webhook>>
  /** `GET /orgs/{org}/hooks/{id}`: NotFound `webhook does not exist [id: N]` also for another owner's hook (Forgejo: generic 404). */
  readonly get: (organization: User, id: number) => Effect.Effect<Webhook, NotFound>
  /** `POST /orgs/{org}/hooks`: the checks and texts of `parseHookDraft` (422; the Slack channel name 400). */
  readonly create: (organization: User, body: CreateHookBody) => Effect.Effect<Webhook, Invalid>
  /** `PATCH /orgs/{org}/hooks/{id}`: NotFound first, then the checks of `applyHookEdit` (422). */
  readonly edit: (organization: User, id: number, body: EditHookBody) => Effect.Effect<Webhook, NotFound | Invalid>
  /** `DELETE /orgs/{org}/hooks/{id}`: NotFound `webhook does not exist [id: N]`. */
  readonly remove: (organization: User, id: number) => Effect.Effect<void, NotFound>
}>()("@kiln/domain/org/OrgWebhooks") {}

const nowSeconds = Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000))

export const layer: Layer.Layer<OrgWebhooks, never, WebhookStore> = Layer.effect(
  OrgWebhooks,
  Effect.gen(function*() {
    const store = yield* WebhookStore

    const get = (organization: User, id: number) =>
      Effect.flatMap(store.findForOwner(organization.id, id), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new NotFound({ message: webhookNotFoundMessage(id) })))

    return OrgWebhooks.of({
      list: (organization, page) => store.listForOwner(organization.id, page),
      get,
      create: (organization, body) =>
        Effect.gen(function*() {
          const draft = yield* parseHookDraft(body)
          const now = yield* nowSeconds
          return yield* store.insert({ ...draft, ownerId: organization.id, createdAt: now, updatedAt: now })
        }),
      edit: (organization, id, body) =>
        Effect.gen(function*() {
          const hook = yield* get(organization, id)
          const changes = yield* applyHookEdit(hook, body, yield* nowSeconds)
          return yield* store.update(hook.id, changes)
        }),
      remove: (organization, id) =>
        Effect.flatMap(store.removeForOwner(organization.id, id), (removed) =>
          removed ? Effect.void : Effect.fail(new NotFound({ message: webhookNotFoundMessage(id) })))
    })
  })
)
