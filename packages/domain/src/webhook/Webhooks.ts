/**
 * Webhooks of an organization (api-facts §5.4) or of a repository, with the same rules and JSON;
 * the routes gate who may use them (organization owners, repository admins).
 * [routers/api/v1/org/hook.go, routers/api/v1/repo/hook.go, routers/api/v1/utils/hook.go]
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Invalid, NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import {
  applyHookEdit,
  type CreateHookBody,
  type EditHookBody,
  parseHookDraft,
  type Webhook,
  webhookNotFoundMessage
} from "../org/Webhook.ts"
import { type HookScope, WebhookStore } from "../org/WebhookStore.ts"

export class Webhooks extends Context.Service<Webhooks, {
  /** `GET …/hooks`: by id; `total` for X-Total-Count. */
  readonly list: (scope: HookScope, page: PageRequest) => Effect.Effect<Page<Webhook>>
  /** `GET …/hooks/{id}`: NotFound `webhook does not exist [id: N]` also for another scope's hook (Forgejo: generic 404). */
  readonly get: (scope: HookScope, id: number) => Effect.Effect<Webhook, NotFound>
  /**
   * `POST …/hooks`: the checks and texts of `parseHookDraft` (422; the Slack channel name 400), then
   * Kiln's bound on hooks per repository or organization (422).
   */
  readonly create: (scope: HookScope, body: CreateHookBody) => Effect.Effect<Webhook, Invalid>
  /** `PATCH …/hooks/{id}`: NotFound first, then the checks of `applyHookEdit` (422). */
  readonly edit: (scope: HookScope, id: number, body: EditHookBody) => Effect.Effect<Webhook, NotFound | Invalid>
  /** `DELETE …/hooks/{id}`: NotFound `webhook does not exist [id: N]`. */
  readonly remove: (scope: HookScope, id: number) => Effect.Effect<void, NotFound>
}>()("@kiln/domain/webhook/Webhooks") {}

const nowSeconds = Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000))

/**
 * Hooks a repository or an organization may have (GitHub's limit; Forgejo has none): every event
 * makes a delivery per hook, and every delivery is work for the site.
 */
export const MAX_HOOKS_PER_SCOPE = 20

export const tooManyHooksMessage = `Maximum number of webhooks reached (${MAX_HOOKS_PER_SCOPE})`

const notFound = (id: number) => new NotFound({ message: webhookNotFoundMessage(id) })

export const layer: Layer.Layer<Webhooks, never, WebhookStore> = Layer.effect(
  Webhooks,
  Effect.gen(function*() {
    const store = yield* WebhookStore

    const get = (scope: HookScope, id: number) =>
      Effect.flatMap(store.findIn(scope, id), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(notFound(id)))

    return Webhooks.of({
      list: store.listIn,
      get,
      create: (scope, body) =>
        Effect.gen(function*() {
          const draft = yield* parseHookDraft(body)
          // Counted before the insert, outside a lock: concurrent creates may pass the limit by a few.
          const existing = yield* store.listIn(scope, { page: 1, limit: 1 })
          if (existing.total >= MAX_HOOKS_PER_SCOPE) return yield* new Invalid({ message: tooManyHooksMessage })
          const now = yield* nowSeconds
          return yield* store.insert({
            ...draft,
            ownerId: scope.kind === "owner" ? scope.ownerId : undefined,
            repositoryId: scope.kind === "repository" ? scope.repositoryId : undefined,
            createdAt: now,
            updatedAt: now
          })
        }),
      edit: (scope, id, body) =>
        Effect.gen(function*() {
          const hook = yield* get(scope, id)
          const changes = yield* applyHookEdit(hook, body, yield* nowSeconds)
          return yield* store.update(hook.id, changes)
        }),
      remove: (scope, id) =>
        Effect.flatMap(store.removeIn(scope, id), (removed) => removed ? Effect.void : Effect.fail(notFound(id)))
    })
  })
)
