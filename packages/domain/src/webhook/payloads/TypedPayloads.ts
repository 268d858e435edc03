/**
 * The payloads of the hook types that do not take Forgejo's own: each type converts the stored
 * Forgejo payload into its service's message (services/webhook/<type>.go). A type without a
 * converter here is not sent: its deliveries fail with a message naming it.
 */
import type { Webhook } from "../../org/Webhook.ts"
import type { WebhookDelivery } from "../WebhookDelivery.ts"

export type TypedPayload =
  | { readonly _tag: "Payload"; readonly method: string; readonly url: string; readonly body: string }
  | { readonly _tag: "Unsupported"; readonly message: string }

export const unsupportedMessage = (type: string): string => `webhook type "${type}" is not supported by Kiln`

export const typedPayload = (hook: Webhook, _delivery: WebhookDelivery): TypedPayload => ({
  _tag: "Unsupported",
  message: unsupportedMessage(hook.type)
})
