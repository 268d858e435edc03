/**
 * The request a delivery sends, as Forgejo's handler for the hook's type builds it: the body, the
 * content type, and the default headers (delivery id, event, signatures) under Forgejo's, Gitea's,
 * Gogs' and GitHub's names; then the hook's authorization header. What an attempt records is the
 * same request with that header redacted. [services/webhook/default.go, shared/payloader.go,
 * deliver.go]
 */
import { Effect } from "effect"
import { Digest, Mac } from "effect/crypto"
import type { Webhook } from "../org/Webhook.ts"
import { utf8Bytes } from "../Utf8.ts"
import { marshalMap, queryEscape } from "./GoJson.ts"
import { isSendableHeaderValue, unsendableHeaderMessage } from "./HeaderValue.ts"
import type { HookEventType } from "./HookEvent.ts"
import type { OutgoingRequest } from "./HookTransport.ts"
import { typedPayload } from "./payloads/TypedPayloads.ts"
import type { WebhookDelivery } from "./WebhookDelivery.ts"

export type HookRequest =
  | { readonly _tag: "Request"; readonly request: OutgoingRequest; readonly recorded: OutgoingRequest }
  | { readonly _tag: "Unsupported"; readonly message: string }
  /** A header value no client can send (a hook stored before values were checked): no retry helps. */
  | { readonly _tag: "Unsendable"; readonly message: string; readonly recorded: OutgoingRequest }

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

/** Hex HMAC-SHA1 and HMAC-SHA256 of `content` with `secret`; both empty without a secret. */
const signatures = (secret: string, content: string) =>
  Effect.gen(function*() {
    if (secret === "") return { sha1: "", sha256: "" }
    const mac = yield* Mac.Mac
    const keyBytes = new Uint8Array(utf8Bytes(secret))
    const data = new Uint8Array(utf8Bytes(content))
    const sha1 = yield* mac.sign(yield* Mac.key(Mac.hmacSha1, keyBytes), data)
    const sha256 = yield* mac.sign(yield* Mac.key(Mac.hmacSha256, keyBytes), data)
    return { sha1: hex(sha1), sha256: hex(sha256) }
  }).pipe(Effect.orDie)

/** `AddDefaultHeaders`, in its order. */
const defaultHeaders = (guid: string, event: HookEventType, sig: { readonly sha1: string; readonly sha256: string }) => {
  const headers: Array<readonly [string, string]> = []
  for (const product of ["Forgejo", "Gitea", "Gogs"]) {
    headers.push(
      [`X-${product}-Delivery`, guid],
      [`X-${product}-Event`, event],
      [`X-${product}-Event-Type`, event],
      [`X-${product}-Signature`, sig.sha256]
    )
  }
  headers.push(
    ["X-Hub-Signature", `sha1=${sig.sha1}`],
    ["X-Hub-Signature-256", `sha256=${sig.sha256}`],
    ["X-GitHub-Delivery", guid],
    ["X-GitHub-Event", event],
    ["X-GitHub-Event-Type", event]
  )
  return headers
}

/** Go's `git.RefName.ShortName()`: the branch or tag name, or the name after `refs/`. */
const shortRefName = (ref: string): string => {
  for (const prefix of ["refs/heads/", "refs/tags/", "refs/remotes/"]) {
    if (ref.startsWith(prefix)) return ref.slice(prefix.length)
  }
  return ref.startsWith("refs/") ? ref.slice("refs/".length) : ref
}

/**
 * Gitea hooks get create and delete events with the short ref, re-encoded as a Go map (for
 * Woodpecker; codeberg/community#1556).
 */
const giteaContent = (delivery: WebhookDelivery): string => {
  if (delivery.event !== "create" && delivery.event !== "delete") return delivery.payload
  const decoded: unknown = JSON.parse(delivery.payload)
  if (typeof decoded !== "object" || decoded === null || !("ref" in decoded) || typeof decoded.ref !== "string") {
    return delivery.payload
  }
  return marshalMap({ ...decoded, ref: shortRefName(decoded.ref) })
}

/** How Forgejo shows an authorization header it sent. */
const redactedAuthorization = (value: string): string =>
  value.startsWith("Bearer ") ? "Bearer ******" : value.startsWith("Basic ") ? "Basic ******" : "******"

const withAuthorization = (hook: Webhook, request: OutgoingRequest): HookRequest => {
  if (hook.authorizationHeader === "") return { _tag: "Request", request, recorded: request }
  const recorded: OutgoingRequest = {
    ...request,
    headers: [...request.headers, ["Authorization", redactedAuthorization(hook.authorizationHeader)]]
  }
  // Checked when the hook is saved, and again here: a value stored before that check (or written
  // by hand) must fail this delivery, not the process that sends it.
  if (!isSendableHeaderValue(hook.authorizationHeader)) {
    return { _tag: "Unsendable", message: unsendableHeaderMessage("Authorization"), recorded }
  }
  return {
    _tag: "Request",
    request: { ...request, headers: [...request.headers, ["Authorization", hook.authorizationHeader]] },
    recorded
  }
}

/** The request for `delivery` to `hook`, signed with `secret`; the types Kiln does not send are Unsupported. */
export const buildHookRequest = (hook: Webhook, delivery: WebhookDelivery, secret: string) =>
  Effect.gen(function*() {
    if (hook.type === "forgejo" || hook.type === "gitea" || hook.type === "gogs") {
      // The default handler: POST (the only method the API sets), JSON or `payload=` form.
      const content = hook.type === "gitea" ? giteaContent(delivery) : delivery.payload
      const sig = yield* signatures(secret, content)
      const form = hook.contentType === "form"
      const request: OutgoingRequest = {
        method: "POST",
        url: hook.url,
        headers: [
          ["Content-Type", form ? "application/x-www-form-urlencoded" : "application/json"],
          ...defaultHeaders(delivery.guid, delivery.event, sig)
        ],
        body: form ? `payload=${queryEscape(content)}` : content
      }
      return withAuthorization(hook, request)
    }
    const typed = typedPayload(hook, delivery)
    if (typed._tag === "Unsupported") return typed
    if (typed.transaction) {
      const digest = yield* Digest.Digest
      const txnId = yield* digest.digestHex(Digest.sha1, new Uint8Array(utf8Bytes(typed.body))).pipe(Effect.orDie)
      const request: OutgoingRequest = {
        method: typed.method,
        url: `${typed.url}/${txnId}`,
        headers: [["Content-Type", "application/json"]],
        body: typed.body
      }
      return withAuthorization(hook, request)
    }
    // NewJSONRequest: the type's payload as indented JSON, signed like the default handler's.
    const sig = yield* signatures(secret, typed.body)
    const request: OutgoingRequest = {
      method: typed.method,
      url: typed.url,
      headers: [["Content-Type", "application/json"], ...defaultHeaders(delivery.guid, delivery.event, sig)],
      body: typed.body
    }
    return withAuthorization(hook, request)
  })
