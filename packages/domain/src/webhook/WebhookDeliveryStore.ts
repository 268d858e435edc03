/** The port for deliveries and their attempts. Writes join the caller's transaction. */
import { Context, type Effect, type Option } from "effect"
import type { Page, PageRequest } from "../Paging.ts"
import type { DeliveryAttempt, NewDelivery, WebhookDelivery } from "./WebhookDelivery.ts"

export class WebhookDeliveryStore extends Context.Service<WebhookDeliveryStore, {
  /** The new delivery's id. */
  readonly insert: (delivery: NewDelivery) => Effect.Effect<number>
  readonly find: (id: number) => Effect.Effect<Option.Option<WebhookDelivery>>
  /** A delivery of this hook; another hook's is not found. */
  readonly findForHook: (hookId: number, id: number) => Effect.Effect<Option.Option<WebhookDelivery>>
  /** Newest first. */
  readonly listForHook: (hookId: number, page: PageRequest) => Effect.Effect<Page<WebhookDelivery>>
  /** Records an attempt and makes it the delivery's latest outcome. */
  readonly recordAttempt: (id: number, attempt: DeliveryAttempt, status: string) => Effect.Effect<void>
  readonly latestAttempt: (id: number) => Effect.Effect<Option.Option<DeliveryAttempt>>
  /** Marks the delivery as sent again on request: pending, a redelivery. */
  readonly markRedelivery: (id: number) => Effect.Effect<void>
  /** Removes deliveries created before `before` (unix milliseconds) with nothing left to send; how many. */
  readonly pruneBefore: (before: number) => Effect.Effect<number>
}>()("@kiln/domain/webhook/WebhookDeliveryStore") {}
