/**
 * One event for one hook, sent until a receiver answers 2xx or the retry schedule gives up, and
 * each try at it. `guid` is the `X-Forgejo-Delivery` value, the same on every attempt.
 */
import type { HookEventType } from "./HookEvent.ts"

/** `status` of a delivery no attempt has finished yet. */
export const PENDING = "pending"
/** `status` of a delivery a receiver answered with 2xx. */
export const DELIVERED = "OK"

export interface WebhookDelivery {
  readonly id: number
  readonly hookId: number
  readonly guid: string
  readonly event: HookEventType
  readonly action: string
  /** The event's payload as Forgejo's own hook types send it (indented JSON). */
  readonly payload: string
  /** Unix milliseconds. */
  readonly createdAt: number
  /** `OK`, `pending`, or what went wrong on the latest attempt. */
  readonly status: string
  readonly statusCode: number | undefined
  /** When the latest attempt finished (unix milliseconds). */
  readonly deliveredAt: number | undefined
  /** Milliseconds the latest attempt took. */
  readonly duration: number | undefined
  readonly attempts: number
  readonly redelivery: boolean
  /** When the next attempt is due (unix milliseconds); undefined when none is. */
  readonly nextAttemptAt: number | undefined
  /** The delivery of the same hook for the event just before in the same change, sent first. */
  readonly follows: number | undefined
}

/** What a new delivery is made of. */
export interface NewDelivery {
  readonly hookId: number
  readonly guid: string
  readonly event: HookEventType
  readonly action: string
  readonly payload: string
  readonly follows: number | undefined
}

/** The request an attempt sent, as recorded (secrets redacted). */
export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface RecordedResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The first 64 KiB of the body. */
  readonly body: string
}

export interface DeliveryAttempt {
  /** Unix milliseconds. */
  readonly startedAt: number
  readonly duration: number
  readonly request: RecordedRequest
  readonly response: RecordedResponse | undefined
  /** Why there is no 2xx response, when there is none. */
  readonly error: string | undefined
}
