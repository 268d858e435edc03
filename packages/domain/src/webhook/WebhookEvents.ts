/**
 * Turns an event into deliveries: one per active hook of the repository or its owner that wants it
 * (event switch, branch filter), each written with the job that sends it. Call it inside the
 * transaction of the change the event reports (a transactional outbox): a change that rolls back
 * leaves no delivery, and one that commits cannot lose its own.
 * [services/webhook/webhook.go PrepareWebhooks, PrepareTestWebhook]
 */
import { Context, Effect, Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import { Jobs } from "../coordination/Jobs.ts"
import type { Webhook } from "../org/Webhook.ts"
import { WebhookStore } from "../org/WebhookStore.ts"
import { Transactions } from "../repo/Transactions.ts"
import { marshalIndent } from "./GoJson.ts"
import { type HookEvent, wantsEvent } from "./HookEvent.ts"
import { WebhookDeliveryStore } from "./WebhookDeliveryStore.ts"

/** The job kind that sends one delivery, keyed by the delivery's id. */
export const DELIVERY_JOB = "webhook_delivery"

/**
 * Deliveries share the job slots by the owner of the repository the event happened in (a user or
 * an organization), whichever hooks they go to: one owner's many hooks cannot hold every slot.
 */
export const deliveryFairnessKey = (ownerId: number): string => `owner:${ownerId}`

/** Where an event happened. */
export interface EventSource {
  readonly repositoryId: number
  readonly ownerId: number
}

export class WebhookEvents extends Context.Service<WebhookEvents, {
  /**
   * Deliveries for every hook that wants one of `events` (the events of one change, in the order
   * they happened: each hook is sent them in that order); how many.
   */
  readonly emit: (source: EventSource, events: ReadonlyArray<HookEvent>) => Effect.Effect<number>
  /**
   * `emit` of the events `build` makes, made only when the source has an active hook: a push's
   * payloads read its commits from git, work no one needs when nothing listens.
   */
  readonly emitBuilt: (source: EventSource, build: Effect.Effect<ReadonlyArray<HookEvent>>) => Effect.Effect<number>
  /** A delivery of `event` to `hook` whatever its events, filter and activity (the hook test). */
  readonly emitTo: (source: EventSource, hook: Webhook, event: HookEvent) => Effect.Effect<void>
}>()("@kiln/domain/webhook/WebhookEvents") {}

export const layer: Layer.Layer<
  WebhookEvents,
  never,
  WebhookStore | WebhookDeliveryStore | Jobs | Transactions | SecureRandom.SecureRandom
> = Layer.effect(
  WebhookEvents,
  Effect.gen(function*() {
    const hooks = yield* WebhookStore
    const deliveries = yield* WebhookDeliveryStore
    const jobs = yield* Jobs
    const transactions = yield* Transactions
    const random = yield* SecureRandom.SecureRandom

    const deliver = (source: EventSource, hook: Webhook, event: HookEvent, payload: string, follows: number | undefined) =>
      Effect.gen(function*() {
        const guid = yield* random.uuidV4()
        const id = yield* deliveries.insert({ hookId: hook.id, guid, event: event.type, action: event.action, payload, follows })
        yield* jobs.enqueue(DELIVERY_JOB, String(id), null, { fairnessKey: deliveryFairnessKey(source.ownerId) })
        return id
      })

    const emitBuilt = (source: EventSource, build: Effect.Effect<ReadonlyArray<HookEvent>>) =>
        Effect.gen(function*() {
          const active = yield* hooks.activeFor(source.repositoryId, source.ownerId)
          if (active.length === 0) return 0
          const events = yield* build
          if (events.length === 0) return 0
          return yield* transactions.run(Effect.gen(function*() {
            const latest = new Map<number, number>()
            let count = 0
            for (const event of events) {
              const wanting = active.filter((hook) => wantsEvent(hook, event))
              if (wanting.length === 0) continue
              const payload = marshalIndent(event.payload, event.indent)
              for (const hook of wanting) latest.set(hook.id, yield* deliver(source, hook, event, payload, latest.get(hook.id)))
              count += wanting.length
            }
            return count
          }))
        })

    return WebhookEvents.of({
      emit: (source, events) => events.length === 0 ? Effect.succeed(0) : emitBuilt(source, Effect.succeed(events)),
      emitBuilt,
      emitTo: (source, hook, event) =>
        transactions.run(Effect.asVoid(deliver(source, hook, event, marshalIndent(event.payload, event.indent), undefined)))
    })
  })
)
