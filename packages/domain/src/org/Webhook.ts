/**
 * Webhooks of an organization or a repository: what a hook is, what Forgejo's API accepts when one
 * is created or edited, and how it is listed. Delivery is in ../webhook.
 * [routers/api/v1/utils/hook.go, models/webhook/webhook.go, modules/webhook/{type,structs}.go,
 * services/webhook/general.go ToHook]
 */
import { Effect } from "effect"
import { Invalid } from "../errors.ts"
import { globLengthError } from "../repo/NameGlob.ts"
import { isSendableHeaderValue } from "../webhook/HeaderValue.ts"
import { globPatternError } from "./GlobPattern.ts"
import { isValidHttpUrl } from "./HttpUrl.ts"

export const hookTypes = [
  "forgejo",
  "gitea",
  "gogs",
  "slack",
  "discord",
  "dingtalk",
  "telegram",
  "msteams",
  "feishu",
  "matrix",
  "wechatwork",
  "packagist",
  "sourcehut_builds"
] as const
export type HookType = (typeof hookTypes)[number]

export const isHookType = (value: string): value is HookType => hookTypes.some((type) => type === value)

export const hookContentTypes = ["json", "form"] as const
export type HookContentType = (typeof hookContentTypes)[number]

export const isHookContentType = (value: string): value is HookContentType =>
  hookContentTypes.some((type) => type === value)

/** The event switches a hook stores (Forgejo's `HookEvents`), in their order. */
export const hookEventSwitches = [
  "create",
  "delete",
  "fork",
  "issues",
  "issue_assign",
  "issue_label",
  "issue_milestone",
  "issue_comment",
  "push",
  "pull_request",
  "pull_request_assign",
  "pull_request_label",
  "pull_request_milestone",
  "pull_request_comment",
  "pull_request_review",
  "pull_request_sync",
  "pull_request_review_request",
  "wiki",
  "repository",
  "release",
  "package",
  "action_run_failure",
  "action_run_recover",
  "action_run_success"
] as const
export type HookEventSwitch = (typeof hookEventSwitches)[number]

export const isHookEventSwitch = (value: string): value is HookEventSwitch =>
  hookEventSwitches.some((event) => event === value)

/** Slack's settings, kept with the hook (Forgejo's `SlackMeta`). */
export interface SlackSettings {
  readonly channel: string
  readonly username: string
  readonly iconUrl: string
  readonly color: string
}

export interface Webhook {
  readonly id: number
  /** Set for an organization's hook. */
  readonly ownerId: number | undefined
  /** Set for a repository's hook. */
  readonly repositoryId: number | undefined
  readonly type: HookType
  readonly url: string
  readonly contentType: HookContentType
  /** The switched-on events, in switch order. */
  readonly events: ReadonlyArray<HookEventSwitch>
  readonly branchFilter: string
  /** Returned by the API, unlike the secret. */
  readonly authorizationHeader: string
  readonly active: boolean
  readonly isSystemWebhook: boolean
  /** Slack hooks only. */
  readonly slack: SlackSettings | undefined
  /** Unix seconds. */
  readonly createdAt: number
  readonly updatedAt: number
}

/** What a new hook is made of; the secret is stored but never read back with the hook. */
export type NewWebhook = Omit<Webhook, "id"> & { readonly secret: string }

/** Fields an edit may change. */
export type WebhookChanges = Pick<
  Webhook,
  "url" | "contentType" | "events" | "branchFilter" | "authorizationHeader" | "active" | "slack" | "updatedAt"
>

export const webhookNotFoundMessage = (id: number): string => `webhook does not exist [id: ${id}]`

/** Go's `strings.EqualFold` membership, as Forgejo matches event names. */
const listed = (events: ReadonlyArray<string>, name: string): boolean =>
  events.some((event) => event.toLowerCase() === name)

/**
 * The switches an `events` list turns on (create and edit alike): names match case-insensitively;
 * `issues` switches on every issue event and `pull_request` every pull-request event, while
 * `issues_only` / `pull_request_only` switch on just the plain one; unknown names are ignored;
 * an empty list means `["push"]`. Package and action-run events cannot be chosen through the API.
 */
export const eventSwitchesFor = (requested: ReadonlyArray<string>): ReadonlyArray<HookEventSwitch> => {
  const events = requested.length === 0 ? ["push"] : requested
  const issues = (name: string) => listed(events, name) || listed(events, "issues")
  const pulls = (name: string) => listed(events, name) || listed(events, "pull_request")
  const on: Record<HookEventSwitch, boolean> = {
    create: listed(events, "create"),
    delete: listed(events, "delete"),
    fork: listed(events, "fork"),
    issues: issues("issues_only"),
    issue_assign: issues("issue_assign"),
    issue_label: issues("issue_label"),
    issue_milestone: issues("issue_milestone"),
    issue_comment: issues("issue_comment"),
    push: listed(events, "push"),
    pull_request: pulls("pull_request_only"),
    pull_request_assign: pulls("pull_request_assign"),
    pull_request_label: pulls("pull_request_label"),
    pull_request_milestone: pulls("pull_request_milestone"),
    pull_request_comment: pulls("pull_request_comment"),
    pull_request_review: pulls("pull_request_review"),
    pull_request_sync: pulls("pull_request_sync"),
    pull_request_review_request: pulls("pull_request_review_request"),
    wiki: listed(events, "wiki"),
    repository: listed(events, "repository"),
    release: listed(events, "release"),
    package: false,
    action_run_failure: false,
    action_run_recover: false,
    action_run_success: false
  }
  return hookEventSwitches.filter((event) => on[event])
}

/** Event names a hook lists (`events` in the JSON) and the switch each one reads, in Forgejo's order. */
const listedEvents: ReadonlyArray<readonly [string, HookEventSwitch]> = [
  ["create", "create"],
  ["delete", "delete"],
  ["fork", "fork"],
  ["push", "push"],
  ["issues", "issues"],
  ["issue_assign", "issue_assign"],
  ["issue_label", "issue_label"],
  ["issue_milestone", "issue_milestone"],
  ["issue_comment", "issue_comment"],
  ["pull_request", "pull_request"],
  ["pull_request_assign", "pull_request_assign"],
  ["pull_request_label", "pull_request_label"],
  ["pull_request_milestone", "pull_request_milestone"],
  ["pull_request_comment", "pull_request_comment"],
  ["pull_request_review_approved", "pull_request_review"],
  ["pull_request_review_rejected", "pull_request_review"],
  // Forgejo reads the comment switch here, not the review one.
  ["pull_request_review_comment", "pull_request_comment"],
  ["pull_request_sync", "pull_request_sync"],
  ["wiki", "wiki"],
  ["repository", "repository"],
  ["release", "release"],
  ["package", "package"],
  ["pull_request_review_request", "pull_request_review_request"],
  ["action_run_failure", "action_run_failure"],
  ["action_run_recover", "action_run_recover"],
  ["action_run_success", "action_run_success"]
]

/** Forgejo's `EventsArray`: the names the Hook JSON lists. */
export const hookEventNames = (hook: Pick<Webhook, "events">): ReadonlyArray<string> =>
  listedEvents.filter(([, on]) => hook.events.includes(on)).map(([name]) => name)

/** CreateHookOption. */
export interface CreateHookBody {
  readonly type?: string | undefined
  readonly config?: Readonly<Record<string, string>> | undefined
  readonly events?: ReadonlyArray<string> | undefined
  readonly branchFilter?: string | undefined
  readonly authorizationHeader?: string | undefined
  readonly active?: boolean | undefined
}

/** EditHookOption. */
export interface EditHookBody {
  readonly config?: Readonly<Record<string, string>> | undefined
  readonly events?: ReadonlyArray<string> | undefined
  readonly branchFilter?: string | undefined
  readonly authorizationHeader?: string | undefined
  readonly active?: boolean | undefined
}

const invalid = (message: string, field?: string) =>
  Effect.fail(field === undefined ? new Invalid({ message }) : new Invalid({ field, message }))

/**
 * Binding `GlobPattern` on `branch_filter`: `[BranchFilter]: <gobwas/glob error>`; Kiln also
 * bounds its length (matching costs pattern × branch name).
 */
const bindBranchFilter = (branchFilter: string | undefined): Effect.Effect<void, Invalid> => {
  const error = branchFilter === undefined || branchFilter === "" ? undefined : globLengthError(branchFilter) ?? globPatternError(branchFilter)
  return error === undefined ? Effect.void : invalid(`[BranchFilter]: ${error}`, "BranchFilter")
}

/** Refused when saved, not at each delivery: a header value no HTTP client can send (CR, LF, other controls). */
export const INVALID_AUTHORIZATION_HEADER = "Invalid authorization header"

/**
 * `authorization_header` must be a value an HTTP client can send. Forgejo stores any text and
 * every delivery then fails in Go's client; Kiln refuses it up front with 422.
 */
const bindAuthorizationHeader = (value: string | undefined): Effect.Effect<void, Invalid> =>
  value === undefined || isSendableHeaderValue(value) ? Effect.void : invalid(INVALID_AUTHORIZATION_HEADER, "AuthorizationHeader")

// Go's strconv.ParseBool.
const goBooleans: Readonly<Record<string, boolean>> = {
  "1": true, t: true, T: true, TRUE: true, true: true, True: true,
  "0": false, f: false, F: false, FALSE: false, false: false, False: false
}

const slackChannelPattern = /^#?[a-z0-9_-]{1,80}$/

const slackSettings = (config: Readonly<Record<string, string>>, channel: string): SlackSettings => ({
  channel,
  username: config["username"] ?? "",
  iconUrl: config["icon_url"] ?? "",
  color: config["color"] ?? ""
})

/** A validated CreateHookOption: everything a new hook needs but its owner and times. */
export type HookDraft = Omit<NewWebhook, "ownerId" | "repositoryId" | "createdAt" | "updatedAt">

/**
 * Checks a CreateHookOption as Forgejo does, in its order, with its texts (all 422 unless noted):
 * `[Type]: Required`, `[Config]: Required`, `[BranchFilter]: <glob error>`, `Invalid hook type: <t>`,
 * `Missing config option: url` / `content_type`, `Invalid content type`, `Invalid url`,
 * `Invalid is_system_webhook value`, `Invalid authorization header` (Kiln's: a value with control
 * characters, which no delivery could send), and for Slack `Missing config option: channel` and
 * `Invalid slack channel name` (Forgejo: 400). The secret is `config.secret`; `active` defaults to false.
 */
export const parseHookDraft = (body: CreateHookBody): Effect.Effect<HookDraft, Invalid> =>
  Effect.gen(function*() {
    const type = body.type ?? ""
    if (type === "") return yield* invalid("[Type]: Required", "Type")
    const config = body.config
    if (config === undefined) return yield* invalid("[Config]: Required", "Config")
    yield* bindBranchFilter(body.branchFilter)
    if (!isHookType(type)) return yield* invalid(`Invalid hook type: ${type}`)
    for (const name of ["url", "content_type"]) {
      if (config[name] === undefined) return yield* invalid(`Missing config option: ${name}`)
    }
    const contentType = config["content_type"] ?? ""
    if (!isHookContentType(contentType)) return yield* invalid("Invalid content type")
    const url = config["url"] ?? ""
    if (!isValidHttpUrl(url)) return yield* invalid("Invalid url")
    const systemFlag = config["is_system_webhook"] ?? ""
    const isSystemWebhook = systemFlag === "" ? false : goBooleans[systemFlag]
    if (isSystemWebhook === undefined) return yield* invalid("Invalid is_system_webhook value")
    yield* bindAuthorizationHeader(body.authorizationHeader)
    let slack: SlackSettings | undefined
    if (type === "slack") {
      const channel = config["channel"]
      if (channel === undefined) return yield* invalid("Missing config option: channel")
      if (!slackChannelPattern.test(channel.trim())) return yield* invalid("Invalid slack channel name", "channel")
      slack = slackSettings(config, channel.trim())
    }
    return {
      type,
      url,
      contentType,
      secret: config["secret"] ?? "",
      events: eventSwitchesFor(body.events ?? []),
      branchFilter: body.branchFilter ?? "",
      authorizationHeader: body.authorizationHeader ?? "",
      active: body.active ?? false,
      isSystemWebhook,
      slack
    }
  })

/**
 * Forgejo's editHook: `config.url` / `config.content_type` replace the old values when present
 * (`Invalid url`, `Invalid content type`); a Slack hook takes `config.channel` (unchecked) with
 * username, icon_url and color; events are recomputed from `events` (absent: `["push"]`);
 * `branch_filter` and `authorization_header` are overwritten (absent: ""); `active` only when given.
 * `[BranchFilter]: <glob error>` comes first. The secret and the type never change.
 */
export const applyHookEdit = (
  hook: Webhook,
  body: EditHookBody,
  now: number
): Effect.Effect<WebhookChanges, Invalid> =>
  Effect.gen(function*() {
    yield* bindBranchFilter(body.branchFilter)
    yield* bindAuthorizationHeader(body.authorizationHeader)
    const config = body.config ?? {}
    const url = config["url"]
    if (url !== undefined && !isValidHttpUrl(url)) return yield* invalid("Invalid url")
    const contentType = config["content_type"]
    if (contentType !== undefined && !isHookContentType(contentType)) return yield* invalid("Invalid content type")
    const channel = config["channel"]
    return {
      url: url ?? hook.url,
      contentType: contentType ?? hook.contentType,
      slack: hook.type === "slack" && channel !== undefined ? slackSettings(config, channel) : hook.slack,
      events: eventSwitchesFor(body.events ?? []),
      branchFilter: body.branchFilter ?? "",
      authorizationHeader: body.authorizationHeader ?? "",
      active: body.active ?? hook.active,
      updatedAt: now
    }
  })

/** Forgejo's Hook JSON, keys in its order; `formatTime` renders unix seconds (RFC 3339, server zone). */
export const hookView = (hook: Webhook, formatTime: (unixSeconds: number) => string) => ({
  id: hook.id,
  type: hook.type,
  branch_filter: hook.branchFilter,
  url: hook.url,
  config: hookConfig(hook),
  events: hookEventNames(hook),
  authorization_header: hook.authorizationHeader,
  content_type: hook.contentType,
  metadata: hookMetadata(hook),
  active: hook.active,
  updated_at: formatTime(hook.updatedAt),
  created_at: formatTime(hook.createdAt)
})

/** The deprecated `config`: url and content type, plus Slack's settings; keys sorted, as Go writes maps. */
export const hookConfig = (hook: Webhook): Readonly<Record<string, string>> => {
  const entries: Array<[string, string]> = [["url", hook.url], ["content_type", hook.contentType]]
  if (hook.slack !== undefined) {
    entries.push(
      ["channel", hook.slack.channel],
      ["username", hook.slack.username],
      ["icon_url", hook.slack.iconUrl],
      ["color", hook.slack.color]
    )
  }
  return Object.fromEntries(entries.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
}

/**
 * `metadata`: the type's settings struct, zero-valued when the API never set them (Forgejo keeps
 * them only for hooks made in the web UI); `null` for types without settings.
 */
export const hookMetadata = (hook: Webhook): Readonly<Record<string, string | number | boolean>> | null => {
  switch (hook.type) {
    case "slack":
      return {
        channel: hook.slack?.channel ?? "",
        username: hook.slack?.username ?? "",
        icon_url: hook.slack?.iconUrl ?? "",
        color: hook.slack?.color ?? ""
      }
    case "discord":
      return { username: "", icon_url: "" }
    case "matrix":
      return { homeserver_url: "", room_id: "", message_type: 0 }
    case "packagist":
      return { username: "", api_token: "", package_url: "" }
    case "telegram":
      return { bot_token: "", chat_id: "", thread_id: "" }
    case "sourcehut_builds":
      return { manifest_path: "", visibility: "", secrets: false }
    default:
      return null
  }
}
