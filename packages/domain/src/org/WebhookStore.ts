/** The port for webhooks of an owner or of a repository. The secret is written with the hook and never read back with it. */
import { Context, type Effect, type Option } from "effect"
import type { Page, PageRequest } from "../Paging.ts"
import type { NewWebhook, Webhook, WebhookChanges } from "./Webhook.ts"

/** Whose hooks: an organization's (every repository it owns) or one repository's. */
export type HookScope =
  | { readonly kind: "owner"; readonly ownerId: number }
  | { readonly kind: "repository"; readonly repositoryId: number }

export class WebhookStore extends Context.Service<WebhookStore, {
  readonly insert: (hook: NewWebhook) => Effect.Effect<Webhook>
  readonly update: (id: number, changes: WebhookChanges) => Effect.Effect<Webhook>
  /** A hook of this scope; another scope's hook is not found. */
  readonly findIn: (scope: HookScope, id: number) => Effect.Effect<Option.Option<Webhook>>
  /** By id. */
  readonly listIn: (scope: HookScope, page: PageRequest) => Effect.Effect<Page<Webhook>>
  /** False when the scope has no such hook. */
  readonly removeIn: (scope: HookScope, id: number) => Effect.Effect<boolean>
  /** The active hooks of a repository and of its owner, repository hooks first. */
  readonly activeFor: (repositoryId: number, ownerId: number) => Effect.Effect<ReadonlyArray<Webhook>>
  /** By id, whatever its scope. */
  readonly find: (id: number) => Effect.Effect<Option.Option<Webhook>>
  /** The stored secret, for whoever signs deliveries. */
  readonly secretOf: (id: number) => Effect.Effect<Option.Option<string>>
}>()("@kiln/domain/org/WebhookStore") {}
