/**
 * WebhookDeliveryStore on Postgres (migration 0011). A delivery's next attempt is its job's due
 * time (the `jobs` row of kind `webhook_delivery` keyed by its id, while pending), so the schedule
 * has one source of truth; a delivered one has none, also in the moment between its attempt being
 * recorded and the worker marking its job done.
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { isHookEventType } from "@kiln/domain/webhook/HookEvent"
import type { DeliveryAttempt, WebhookDelivery } from "@kiln/domain/webhook/WebhookDelivery"
import { DELIVERED, PENDING } from "@kiln/domain/webhook/WebhookDelivery"
import { WebhookDeliveryStore } from "@kiln/domain/webhook/WebhookDeliveryStore"
import { DELIVERY_JOB } from "@kiln/domain/webhook/WebhookEvents"
import { offsetOf } from "@kiln/domain/Paging"
import { int, totalOf } from "./Rows.ts"

interface DeliveryRow {
  readonly id: unknown
  readonly hook_id: unknown
  readonly guid: string
  readonly event: string
  readonly action: string
  readonly payload: string
  readonly created_ms: unknown
  readonly status: string
  readonly status_code: unknown
  readonly delivered_ms: unknown
  readonly duration_ms: unknown
  readonly attempts: unknown
  readonly redelivery: boolean
  readonly next_ms: unknown
  readonly follows: unknown
}

interface AttemptRow {
  readonly started_ms: unknown
  readonly duration_ms: unknown
  readonly request_method: string
  readonly request_url: string
  readonly request_headers: string
  readonly request_body: string
  readonly response_status: unknown
  readonly response_headers: string | null
  readonly response_body: string | null
  readonly error: string | null
}

const optionalNumber = (value: unknown): number | undefined => value === null || value === undefined ? undefined : Number(value)

const stringMap = (json: string): Readonly<Record<string, string>> => {
  const parsed: unknown = JSON.parse(json)
  if (typeof parsed !== "object" || parsed === null) return {}
  return Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, String(value)]))
}

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: int(row.id),
  hookId: int(row.hook_id),
  guid: row.guid,
  // Only the domain's event types are written.
  event: isHookEventType(row.event) ? row.event : "push",
  action: row.action,
  payload: row.payload,
  createdAt: Number(row.created_ms),
  status: row.status,
  statusCode: optionalNumber(row.status_code),
  deliveredAt: optionalNumber(row.delivered_ms),
  duration: optionalNumber(row.duration_ms),
  attempts: int(row.attempts),
  redelivery: row.redelivery,
  nextAttemptAt: optionalNumber(row.next_ms),
  follows: optionalNumber(row.follows)
})

const toAttempt = (row: AttemptRow): DeliveryAttempt => ({
  startedAt: Number(row.started_ms),
  duration: Number(row.duration_ms),
  request: { method: row.request_method, url: row.request_url, headers: stringMap(row.request_headers), body: row.request_body },
  response: row.response_status === null
    ? undefined
    : { status: int(row.response_status), headers: stringMap(row.response_headers ?? "{}"), body: row.response_body ?? "" },
  error: row.error ?? undefined
})

const millis = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`

export const layer = Layer.effect(
  WebhookDeliveryStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const selectDeliveries = sql.literal(`
      SELECT d.id, d.hook_id, d.guid, d.event, d.action, d.payload, ${millis("d.created_at")} AS created_ms, d.status,
        d.status_code, ${millis("d.delivered_at")} AS delivered_ms, d.duration_ms, d.attempts, d.redelivery,
        CASE WHEN d.status = '${DELIVERED}' THEN NULL ELSE ${millis("j.run_at")} END AS next_ms, d.follows
      FROM webhook_deliveries d
      LEFT JOIN jobs j ON j.kind = '${DELIVERY_JOB}' AND j.key = d.id::text AND j.done_at IS NULL`)
    const first = (rows: ReadonlyArray<DeliveryRow>) => Option.map(Option.fromNullishOr(rows[0]), toDelivery)

    return WebhookDeliveryStore.of({
      insert: (delivery) =>
        sql<{ id: unknown }>`INSERT INTO webhook_deliveries ${
          sql.insert({
            hook_id: delivery.hookId,
            guid: delivery.guid,
            event: delivery.event,
            action: delivery.action,
            payload: delivery.payload,
            follows: delivery.follows ?? null
          })
        } RETURNING id`.pipe(Effect.map(([row]) => int(row?.id)), Effect.orDie),
      find: (id) => sql<DeliveryRow>`${selectDeliveries} WHERE d.id = ${id}`.pipe(Effect.map(first), Effect.orDie),
      findForHook: (hookId, id) =>
        sql<DeliveryRow>`${selectDeliveries} WHERE d.hook_id = ${hookId} AND d.id = ${id}`.pipe(Effect.map(first), Effect.orDie),
      listForHook: (hookId, page) =>
        Effect.all([
          sql<DeliveryRow>`${selectDeliveries} WHERE d.hook_id = ${hookId}
            ORDER BY d.id DESC LIMIT ${page.limit} OFFSET ${offsetOf(page)}`,
          sql<{ total: unknown }>`SELECT count(*) AS total FROM webhook_deliveries WHERE hook_id = ${hookId}`
        ]).pipe(Effect.map(([rows, counted]) => ({ items: rows.map(toDelivery), total: totalOf(counted) })), Effect.orDie),
      recordAttempt: (id, attempt, status) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO webhook_delivery_attempts ${
            sql.insert({
              delivery_id: id,
              started_at: new Date(attempt.startedAt),
              duration_ms: attempt.duration,
              request_method: attempt.request.method,
              request_url: attempt.request.url,
              request_headers: JSON.stringify(attempt.request.headers),
              request_body: attempt.request.body,
              response_status: attempt.response?.status ?? null,
              response_headers: attempt.response === undefined ? null : JSON.stringify(attempt.response.headers),
              response_body: attempt.response?.body ?? null,
              error: attempt.error ?? null
            })
          }`
          yield* sql`UPDATE webhook_deliveries SET status = ${status}, status_code = ${attempt.response?.status ?? null},
            delivered_at = to_timestamp(${attempt.startedAt + attempt.duration}::float8 / 1000),
            duration_ms = ${attempt.duration}, attempts = attempts + 1
            WHERE id = ${id}`
        })).pipe(Effect.orDie),
      latestAttempt: (id) =>
        sql<AttemptRow>`SELECT ${sql.literal(millis("started_at"))} AS started_ms, duration_ms, request_method, request_url,
            request_headers::text AS request_headers, request_body, response_status,
            response_headers::text AS response_headers, response_body, error
          FROM webhook_delivery_attempts WHERE delivery_id = ${id} ORDER BY id DESC LIMIT 1`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toAttempt)),
          Effect.orDie
        ),
      markRedelivery: (id) =>
        sql`UPDATE webhook_deliveries SET status = ${PENDING}, redelivery = true WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      pruneBefore: (before) =>
        sql.withTransaction(Effect.gen(function*() {
          const cutoff = new Date(before)
          // Only deliveries whose job is finished: one still being retried stays until it is done.
          const removed = yield* sql<{ id: unknown }>`
            DELETE FROM webhook_deliveries d WHERE d.created_at < ${cutoff}
              AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.kind = ${DELIVERY_JOB} AND j.key = d.id::text AND j.done_at IS NULL)
            RETURNING d.id`
          yield* sql`DELETE FROM jobs WHERE kind = ${DELIVERY_JOB} AND done_at IS NOT NULL AND done_at < ${cutoff}`
          return removed.length
        })).pipe(Effect.orDie)
    })
  })
)
