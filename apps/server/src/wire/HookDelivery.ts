/**
 * A webhook delivery in GitHub's shape (Forgejo has no such API): the summary listed newest
 * first, and the detail with the latest attempt's request and response. `guid` is the
 * `X-Forgejo-Delivery` value; `duration` is in seconds; times are RFC 3339.
 */
import { Option, Schema } from "effect"
import type { DeliveryDetails } from "@kiln/domain/webhook/WebhookDeliveries"
import type { WebhookDelivery } from "@kiln/domain/webhook/WebhookDelivery"
import { rfc3339 } from "./Time.ts"

const fields = {
  id: Schema.Number,
  guid: Schema.String,
  delivered_at: Schema.NullOr(Schema.String.annotate({ format: "date-time" })),
  redelivery: Schema.Boolean,
  duration: Schema.NullOr(Schema.Number.annotate({ description: "seconds the latest attempt took" })),
  status: Schema.String.annotate({ description: "`OK`, `pending`, or what went wrong on the latest attempt" }),
  status_code: Schema.NullOr(Schema.Number),
  event: Schema.String,
  action: Schema.NullOr(Schema.String),
  attempts: Schema.Number,
  next_attempt_at: Schema.NullOr(Schema.String.annotate({ format: "date-time" }))
}

export const HookDeliveryJson = Schema.Struct(fields).annotate({ identifier: "HookDelivery" })

const Headers = Schema.Record(Schema.String, Schema.String)

export const HookDeliveryDetailJson = Schema.Struct({
  ...fields,
  request: Schema.NullOr(Schema.Struct({
    headers: Headers,
    payload: Schema.Unknown.annotate({ description: "the body sent: JSON as a value, anything else as text" })
  })),
  response: Schema.NullOr(Schema.Struct({
    headers: Headers,
    payload: Schema.String.annotate({ description: "the first 64 KiB of the body" })
  }))
}).annotate({ identifier: "HookDeliveryDetail" })

const time = (millis: number | undefined) => millis === undefined ? null : rfc3339(Math.floor(millis / 1000))

export const toHookDeliveryJson = (delivery: WebhookDelivery): typeof HookDeliveryJson.Type => ({
  id: delivery.id,
  guid: delivery.guid,
  delivered_at: time(delivery.deliveredAt),
  redelivery: delivery.redelivery,
  duration: delivery.duration === undefined ? null : delivery.duration / 1000,
  status: delivery.status,
  status_code: delivery.statusCode ?? null,
  event: delivery.event,
  action: delivery.action === "" ? null : delivery.action,
  attempts: delivery.attempts,
  next_attempt_at: time(delivery.nextAttemptAt)
})

const bodyValue = (body: string): unknown => {
  try {
    return JSON.parse(body)
  } catch {
    return body
  }
}

export const toHookDeliveryDetailJson = (details: DeliveryDetails): typeof HookDeliveryDetailJson.Type => {
  const attempt = Option.getOrUndefined(details.attempt)
  return {
    ...toHookDeliveryJson(details.delivery),
    request: attempt === undefined ? null : { headers: attempt.request.headers, payload: bodyValue(attempt.request.body) },
    response: attempt?.response === undefined ? null : { headers: attempt.response.headers, payload: attempt.response.body }
  }
}
