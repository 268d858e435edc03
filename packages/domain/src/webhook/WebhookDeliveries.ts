/**
 * Sending deliveries and looking back at them. The job of a delivery sends it once per run: the
 * attempt is recorded whatever happens, and a run without a 2xx answer fails so the retry schedule
 * brings it back (KILN_WEBHOOK_RETRY_DELAY doubling, at most an hour apart, KILN_WEBHOOK_MAX_ATTEMPTS
 * in all). What cannot succeed by retrying (a type Kiln does not send, a header value no client
 * can send, a target the allowed-hosts list refuses, an inactive hook) is recorded once as failed.
 * History older than KILN_WEBHOOK_HISTORY_DAYS is pruned by a periodic task.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Digest, Mac } from "effect/crypto"
import { type Job, JobDeferred, JobFailed, type JobHandler, Jobs } from "../coordination/Jobs.ts"
import * as PeriodicTask from "../coordination/PeriodicTask.ts"
import * as RetrySchedule from "../coordination/RetrySchedule.ts"
import { NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { Webhook } from "../org/Webhook.ts"
import { WebhookStore } from "../org/WebhookStore.ts"
import { Transactions } from "../repo/Transactions.ts"
import { parseAllowedHosts } from "./AllowedHosts.ts"
import { buildHookRequest } from "./HookRequest.ts"
import { HookTransport, type OutgoingRequest } from "./HookTransport.ts"
import { DELIVERED, type DeliveryAttempt, type RecordedRequest, type WebhookDelivery } from "./WebhookDelivery.ts"
import { WebhookDeliveryStore } from "./WebhookDeliveryStore.ts"
import { DELIVERY_JOB } from "./WebhookEvents.ts"
import { MAX_RETRY_DELAY, WebhookSettings } from "./WebhookSettings.ts"

export const deliveryNotFoundMessage = (id: number): string => `hook delivery does not exist [id: ${id}]`

/** A delivery with its latest attempt. */
export interface DeliveryDetails {
  readonly delivery: WebhookDelivery
  readonly attempt: Option.Option<DeliveryAttempt>
}

export class WebhookDeliveries extends Context.Service<WebhookDeliveries, {
  /** Newest first. */
  readonly list: (hook: Webhook, page: PageRequest) => Effect.Effect<Page<WebhookDelivery>>
  /** NotFound for another hook's delivery. */
  readonly get: (hook: Webhook, id: number) => Effect.Effect<DeliveryDetails, NotFound>
  /** Sends it again now, keeping its guid. */
  readonly redeliver: (hook: Webhook, id: number) => Effect.Effect<void, NotFound>
  /** The job handlers to register with the job worker: sending, and pruning the history. */
  readonly handlers: ReadonlyArray<JobHandler<Jobs>>
  /** Schedules the pruning task (every start). */
  readonly schedule: Effect.Effect<void>
}>()("@kiln/domain/webhook/WebhookDeliveries") {}

const recorded = (request: OutgoingRequest): RecordedRequest => ({
  method: request.method,
  url: request.url,
  headers: Object.fromEntries(request.headers),
  body: request.body
})

const PRUNE_EVERY = 60 * 60 * 1000
/**
 * How long after it was made a delivery waits for the one it follows to be tried first (its
 * process may have died); it looks again every FOLLOW_POLL, giving its slot back meanwhile.
 */
const FOLLOW_WAIT = 10_000
const FOLLOW_POLL = 200

/**
 * Deliveries of one owner (the repository's owner, user or organization) sent at once by a process:
 * a share of its 16 job slots, so that one owner's many hooks to a target that never answers cannot
 * hold them all while every other owner's deliveries wait.
 */
export const DELIVERIES_PER_OWNER = 4

export const layer: Layer.Layer<
  WebhookDeliveries,
  never,
  WebhookStore | WebhookDeliveryStore | HookTransport | Jobs | Transactions | Mac.Mac | Digest.Digest
> = Layer.effect(
  WebhookDeliveries,
  Effect.gen(function*() {
    const hooks = yield* WebhookStore
    const store = yield* WebhookDeliveryStore
    const transport = yield* HookTransport
    const jobs = yield* Jobs
    const transactions = yield* Transactions
    const settings = yield* WebhookSettings
    const allowed = parseAllowedHosts(settings.allowedHosts)
    const context = yield* Effect.context<Mac.Mac | Digest.Digest>()

    /** Records a refusal that retrying cannot change. */
    const refuse = (delivery: WebhookDelivery, request: RecordedRequest, message: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        yield* store.recordAttempt(delivery.id, { startedAt: now, duration: 0, request, response: undefined, error: message }, message)
      })

    /**
     * Keeps a change's events in order for each hook: the delivery it follows goes out first. While
     * that one is still untried, this run defers (its slot goes back to the worker).
     */
    const waitForPrevious = (delivery: WebhookDelivery) =>
      Effect.gen(function*() {
        if (delivery.follows === undefined) return
        if ((yield* Clock.currentTimeMillis) - delivery.createdAt >= FOLLOW_WAIT) return
        const previous = yield* store.find(delivery.follows)
        if (Option.isNone(previous) || previous.value.attempts > 0 || previous.value.nextAttemptAt === undefined) return
        return yield* new JobDeferred({ delay: FOLLOW_POLL })
      })

    const send = (job: Job) =>
      Effect.gen(function*() {
        const found = yield* store.find(Number(job.key))
        // Pruned, or its hook was deleted: nothing left to send.
        if (Option.isNone(found)) return
        const delivery = found.value
        yield* waitForPrevious(delivery)
        const hook = yield* hooks.find(delivery.hookId)
        if (Option.isNone(hook)) return
        const secret = Option.getOrElse(yield* hooks.secretOf(hook.value.id), () => "")
        const built = yield* buildHookRequest(hook.value, delivery, secret).pipe(Effect.provideContext(context))
        const empty: RecordedRequest = { method: "POST", url: hook.value.url, headers: {}, body: delivery.payload }
        if (built._tag === "Unsupported") return yield* refuse(delivery, empty, built.message)
        if (built._tag === "Unsendable") return yield* refuse(delivery, recorded(built.recorded), built.message)
        if (!hook.value.active) return yield* refuse(delivery, recorded(built.recorded), "webhook is not active")
        const startedAt = yield* Clock.currentTimeMillis
        const result = yield* transport.send(built.request, { timeout: settings.deliverTimeout, allowed })
        const duration = (yield* Clock.currentTimeMillis) - startedAt
        const request = recorded(built.recorded)
        if (result._tag === "Refused") return yield* refuse(delivery, request, result.message)
        if (result._tag === "Failed") {
          yield* store.recordAttempt(delivery.id, { startedAt, duration, request, response: undefined, error: result.message }, result.message)
          return yield* new JobFailed({ message: result.message })
        }
        const response = { status: result.status, headers: result.headers, body: result.body }
        const ok = result.status >= 200 && result.status < 300
        const status = ok ? DELIVERED : `Invalid HTTP Response: ${result.status}`
        yield* store.recordAttempt(delivery.id, { startedAt, duration, request, response, error: ok ? undefined : status }, status)
        if (!ok) return yield* new JobFailed({ message: status })
      })

    const prune = PeriodicTask.make({
      kind: "webhook_history_prune",
      every: PRUNE_EVERY,
      lease: 5 * 60 * 1000,
      run: Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        yield* store.pruneBefore(now - settings.historyDays * 24 * 60 * 60 * 1000)
      })
    })

    const ofHook = (hook: Webhook, id: number) =>
      Effect.flatMap(store.findForHook(hook.id, id), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new NotFound({ message: deliveryNotFoundMessage(id) })))

    const sending: JobHandler<Jobs> = {
      kind: DELIVERY_JOB,
      retry: RetrySchedule.exponential({ initial: settings.retryDelay, max: MAX_RETRY_DELAY, maxAttempts: settings.maxAttempts }),
      // Room for the request's timeout and the writes around it.
      lease: 2 * settings.deliverTimeout + 5_000,
      perKeyConcurrency: DELIVERIES_PER_OWNER,
      run: send
    }

    return WebhookDeliveries.of({
      list: (hook, page) => store.listForHook(hook.id, page),
      get: (hook, id) =>
        Effect.gen(function*() {
          const delivery = yield* ofHook(hook, id)
          return { delivery, attempt: yield* store.latestAttempt(delivery.id) }
        }),
      redeliver: (hook, id) =>
        Effect.gen(function*() {
          const delivery = yield* ofHook(hook, id)
          yield* transactions.run(Effect.gen(function*() {
            yield* store.markRedelivery(delivery.id)
            yield* jobs.rerun(DELIVERY_JOB, String(delivery.id))
          }))
        }),
      handlers: [sending, prune.handler],
      schedule: Effect.provideService(prune.schedule, Jobs, jobs)
    })
  })
)
