/**
 * The payloads of the hook types that do not take Forgejo's own: each type converts the stored
 * Forgejo payload into its service's message (services/webhook/<type>.go), sent as indented JSON.
 * A type without a converter here is not sent: its deliveries fail with a message naming it.
 */
import type { Webhook } from "../../org/Webhook.ts"
import { marshalIndent } from "../GoJson.ts"
import type { WebhookDelivery } from "../WebhookDelivery.ts"
import { discordMessage } from "./DiscordPayload.ts"
import { msTeamsMessage } from "./MsTeamsPayload.ts"
import { slackMessage } from "./SlackPayload.ts"

export type TypedPayload =
  | { readonly _tag: "Payload"; readonly method: string; readonly url: string; readonly body: string }
  | { readonly _tag: "Unsupported"; readonly message: string }

export const unsupportedMessage = (type: string): string => `webhook type "${type}" is not supported by Kiln`

export const typedPayload = (hook: Webhook, delivery: WebhookDelivery): TypedPayload => {
  const payload: unknown = JSON.parse(delivery.payload)
  switch (hook.type) {
    case "slack":
      return { _tag: "Payload", method: "POST", url: hook.url, body: marshalIndent(slackMessage(hook.slack, delivery.event, payload)) }
    case "discord":
      // The API keeps no Discord settings (Forgejo's web UI does): username and avatar stay empty.
      return {
        _tag: "Payload",
        method: "POST",
        url: hook.url,
        body: marshalIndent(discordMessage({ username: "", iconUrl: "" }, delivery.event, payload))
      }
    case "msteams":
      return { _tag: "Payload", method: "POST", url: hook.url, body: marshalIndent(msTeamsMessage(delivery.event, payload)) }
    default:
      return { _tag: "Unsupported", message: unsupportedMessage(hook.type) }
  }
}
