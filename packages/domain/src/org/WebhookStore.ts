/** The port for webhooks of an owner. The secret is written with the hook and never read back with it. */
import { Context, type Effect, type Option } from "effect"
import type { Page, PageRequest } from "../Paging.ts"
import type { NewWebhook, Webhook, WebhookChanges } from "./Webhook.ts"

export class WebhookStore extends Context.Service<WebhookStore, {
  readonly insert: (hook: NewWebhook) => Effect.Effect<Webhook>
  readonly update: (id: number, changes: WebhookChanges) => Effect.Effect<Webhook>
  /** A hook of this owner; another owner's hook is not found. */
  readonly findForOwner: (ownerId: number, id: number) => Effect.Effect<Option.Option<Webhook>>
  /** By id. */
  readonly listForOwner: (ownerId: number, page: PageRequest) => Effect.Effect<Page<Webhook>>
  /** False when the owner has no such hook. */
  readonly removeForOwner: (ownerId: number, id: number) => Effect.Effect<boolean>
  /** The stored secret, for whoever signs deliveries. */
  readonly secretOf: (id: number) => Effect.Effect<Option.Option<string>>
}>()("@kiln/domain/org/WebhookStore") {}
