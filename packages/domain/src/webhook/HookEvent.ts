/**
 * An event a webhook may be sent for, as Forgejo prepares it: its type (the `X-Forgejo-Event-Type`
 * header), the action inside its payload, the branch it concerns (for `branch_filter`), and the
 * payload Forgejo serialises (modules/structs/hook.go), already rendered.
 * [services/webhook/webhook.go PrepareWebhook, getPayloadBranch, checkBranch]
 */
import { compileNameGlob } from "../repo/NameGlob.ts"
import type { HookEventSwitch, Webhook } from "../org/Webhook.ts"

export const hookEventTypes = ["create", "delete", "fork", "push", "repository", "release"] as const
export type HookEventType = (typeof hookEventTypes)[number]

export const isHookEventType = (value: string): value is HookEventType =>
  hookEventTypes.some((type) => type === value)

/** The switch of a hook that lets each event through. */
const switchOf: Readonly<Record<HookEventType, HookEventSwitch>> = {
  create: "create",
  delete: "delete",
  fork: "fork",
  push: "push",
  repository: "repository",
  release: "release"
}

/** A JSON value as the payload holds it. */
export type Json = string | number | boolean | null | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type JsonObject = { readonly [key: string]: Json }

export interface HookEvent {
  readonly type: HookEventType
  /** `action` of the payload ("" when it has none). */
  readonly action: string
  /** The branch the event concerns, for the branch filter; undefined for tags and other events. */
  readonly branch: string | undefined
  /** Push events: how many commits the payload lists (other hook types skip empty pushes). */
  readonly commitCount: number | undefined
  readonly payload: JsonObject
  /** Forgejo indents most payloads with two spaces, repository (and wiki) payloads with one. */
  readonly indent?: string | undefined
}

/**
 * Forgejo's `checkBranch`: an empty or `*` filter lets every branch through, otherwise the glob
 * decides (one that does not compile, which binding refuses, lets none through).
 */
export const branchAllowed = (filter: string, branch: string): boolean =>
  filter === "" || filter === "*" || (compileNameGlob(filter)?.(branch) ?? false)

/** The types that receive Forgejo's own payload, and get pushes without commits too. */
const integrationTypes: ReadonlyArray<string> = ["forgejo", "gitea", "gogs"]

/** Whether `hook` is sent `event` (PrepareWebhook's checks; activity is checked by the caller's query too). */
export const wantsEvent = (hook: Webhook, event: HookEvent): boolean => {
  if (!hook.active) return false
  if (!hook.events.includes(switchOf[event.type])) return false
  if (event.type === "push" && event.commitCount === 0 && !integrationTypes.includes(hook.type)) return false
  return event.branch === undefined || branchAllowed(hook.branchFilter, event.branch)
}
