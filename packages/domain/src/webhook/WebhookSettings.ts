/** How deliveries are sent and kept (`KILN_WEBHOOK_*`; Forgejo's `[webhook]` defaults). */
import { Context } from "effect"
import { DEFAULT_ALLOWED_HOSTS } from "./AllowedHosts.ts"

export interface WebhookSettingsShape {
  /** Milliseconds an attempt may take before it counts as failed (`DELIVER_TIMEOUT`, 5 s). */
  readonly deliverTimeout: number
  /** Milliseconds before the first retry; doubling, at most an hour apart. */
  readonly retryDelay: number
  /** Attempts in all, the first included. */
  readonly maxAttempts: number
  /** Days deliveries are kept (Forgejo's 168 h). */
  readonly historyDays: number
  /** `ALLOWED_HOST_LIST`. */
  readonly allowedHosts: string
}

export class WebhookSettings extends Context.Reference<WebhookSettingsShape>("@kiln/domain/webhook/WebhookSettings", {
  defaultValue: () => ({
    deliverTimeout: 5_000,
    retryDelay: 10_000,
    maxAttempts: 8,
    historyDays: 7,
    allowedHosts: DEFAULT_ALLOWED_HOSTS
  })
}) {}

/** Longest wait between two attempts. */
export const MAX_RETRY_DELAY = 60 * 60 * 1000
