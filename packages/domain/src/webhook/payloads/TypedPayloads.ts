/**
 * The payloads of the hook types that do not take Forgejo's own: each type converts the stored
 * Forgejo payload into its service's message (services/webhook/<type>.go), sent as indented JSON.
 * A type without a converter here is not sent: its deliveries fail with a message naming it.
 */
import type { Webhook } from "../../org/Webhook.ts"
import { marshalIndent } from "../GoJson.ts"
import type { WebhookDelivery } from "../WebhookDelivery.ts"
import { discordMessage } from "./DiscordPayload.ts"
import { matrixMessage } from "./MatrixPayload.ts"
import { msTeamsMessage } from "./MsTeamsPayload.ts"
import { slackMessage } from "./SlackPayload.ts"

export type TypedPayload =
  | {
    readonly _tag: "Payload"
    readonly method: string
    readonly url: string
    readonly body: string
    /** Matrix: the URL takes `/<SHA-1 of the body>` (the idempotent transaction id), and no default headers. */
    readonly transaction: boolean
  }
  | { readonly _tag: "Unsupported"; readonly message: string }

export const unsupportedMessage = (type: string): string => `webhook type "${type}" is not supported by Kiln`

const post = (hook: Webhook, message: unknown): TypedPayload => ({
  _tag: "Payload",
  method: "POST",
  url: hook.url,
  body: marshalIndent(message),
  transaction: false
})

export const typedPayload = (hook: Webhook, delivery: WebhookDelivery): TypedPayload => {
  const payload: unknown = JSON.parse(delivery.payload)
  switch (hook.type) {
    case "slack":
      return post(hook, slackMessage(hook.slack, delivery.event, payload))
    case "discord":
      // The API keeps no Discord settings (Forgejo's web UI does): username and avatar stay empty.
      return post(hook, discordMessage({ username: "", iconUrl: "" }, delivery.event, payload))
    case "msteams":
      return post(hook, msTeamsMessage(delivery.event, payload))
    case "matrix":
      // The API keeps no Matrix settings: the message type stays unset, as Forgejo sends it then.
      return { _tag: "Payload", method: "PUT", url: hook.url, body: marshalIndent(matrixMessage("", delivery.event, payload)), transaction: true }
    default:
      return { _tag: "Unsupported", message: unsupportedMessage(hook.type) }
  }
}
