/**
 * WebhookStore on Postgres: events stored comma-joined; a hook has an owner or a repository
 * (migration 0011); the secret is written and read only by `secretOf`.
 *
 * Every push asks for the active hooks of its repository and owner, and most repositories have
 * none: what was read is kept for the access version it was read at (DataChanges), which every
 * commit to the hooks moves, from any process (their table notifies like every table an answer is
 * made from, migration 0013), and a push's own writes do not (migration 0023). A hook this process
 * writes also forgets what was kept at once; one written by another process is seen when its
 * notification arrives, milliseconds later, as for the git access decisions.
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { DataChanges } from "@kiln/domain/changes/DataChanges"
import {
  type HookContentType,
  type HookEventSwitch,
  type HookType,
  isHookContentType,
  isHookEventSwitch,
  isHookType,
  type SlackSettings,
  type Webhook,
  type WebhookChanges
} from "@kiln/domain/org/Webhook"
import { type HookScope, WebhookStore } from "@kiln/domain/org/WebhookStore"
import { offsetOf } from "@kiln/domain/Paging"
import { int, totalOf } from "./Rows.ts"

interface WebhookRow {
  readonly id: unknown
  readonly owner_id: unknown
  readonly repo_id: unknown
  readonly type: string
  readonly url: string
  readonly content_type: string
  readonly events: string
  readonly branch_filter: string
  readonly authorization_header: string
  readonly active: boolean
  readonly is_system_webhook: boolean
  readonly slack_channel: string | null
  readonly slack_username: string
  readonly slack_icon_url: string
  readonly slack_color: string
  readonly created_at: unknown
  readonly updated_at: unknown
}

// The secret is deliberately not among them.
const WEBHOOK_COLUMNS = `id, owner_id, repo_id, type, url, content_type, events, branch_filter, authorization_header, active,
  is_system_webhook, slack_channel, slack_username, slack_icon_url, slack_color, created_at, updated_at`

// Only values the domain produced are written, so unknown ones cannot occur; they fall back harmlessly.
const typeOf = (text: string): HookType => isHookType(text) ? text : "forgejo"
const contentTypeOf = (text: string): HookContentType => isHookContentType(text) ? text : "json"
const eventsOf = (text: string): ReadonlyArray<HookEventSwitch> => text.split(",").filter(isHookEventSwitch)

const toWebhook = (row: WebhookRow): Webhook => ({
  id: int(row.id),
  ownerId: row.owner_id === null ? undefined : int(row.owner_id),
  repositoryId: row.repo_id === null ? undefined : int(row.repo_id),
  type: typeOf(row.type),
  url: row.url,
  contentType: contentTypeOf(row.content_type),
  events: eventsOf(row.events),
  branchFilter: row.branch_filter,
  authorizationHeader: row.authorization_header,
  active: row.active,
  isSystemWebhook: row.is_system_webhook,
  slack: row.slack_channel === null
    ? undefined
    : { channel: row.slack_channel, username: row.slack_username, iconUrl: row.slack_icon_url, color: row.slack_color },
  createdAt: int(row.created_at),
  updatedAt: int(row.updated_at)
})

const slackColumns = (slack: SlackSettings | undefined) => ({
  slack_channel: slack === undefined ? null : slack.channel,
  slack_username: slack?.username ?? "",
  slack_icon_url: slack?.iconUrl ?? "",
  slack_color: slack?.color ?? ""
})

const changedColumns = (changes: WebhookChanges) => ({
  url: changes.url,
  content_type: changes.contentType,
  events: changes.events.join(","),
  branch_filter: changes.branchFilter,
  authorization_header: changes.authorizationHeader,
  active: changes.active,
  ...slackColumns(changes.slack),
  updated_at: changes.updatedAt
})

/** Repository and owner pairs whose active hooks are kept; past it, all are forgotten at once. */
const MOST_KEPT = 4_096

export const layer = Layer.effect(
  WebhookStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const changes = yield* Effect.serviceOption(DataChanges)
    const columns = sql.literal(WEBHOOK_COLUMNS)
    const kept = new Map<string, { readonly version: number; readonly hooks: ReadonlyArray<Webhook> }>()
    const forgetting = <A>(write: Effect.Effect<A>) => Effect.ensuring(write, Effect.sync(() => kept.clear()))
    const first = (rows: ReadonlyArray<WebhookRow>) => Option.map(Option.fromNullishOr(rows[0]), toWebhook)
    const inScope = (scope: HookScope) =>
      scope.kind === "owner" ? sql`owner_id = ${scope.ownerId}` : sql`repo_id = ${scope.repositoryId}`
    const only = (rows: ReadonlyArray<WebhookRow>) =>
      Option.match(first(rows), { onNone: () => Effect.die("webhook row missing"), onSome: Effect.succeed })

    return WebhookStore.of({
      insert: (hook) =>
        forgetting(sql<WebhookRow>`INSERT INTO webhooks ${
          sql.insert({
            owner_id: hook.ownerId ?? null,
            repo_id: hook.repositoryId ?? null,
            type: hook.type,
            secret: hook.secret,
            is_system_webhook: hook.isSystemWebhook,
            created_at: hook.createdAt,
            ...changedColumns(hook)
          })
        } RETURNING ${columns}`.pipe(Effect.orDie, Effect.flatMap(only))),
      update: (id, changed) =>
        forgetting(sql<WebhookRow>`UPDATE webhooks SET ${sql.update(changedColumns(changed))} WHERE id = ${id} RETURNING ${columns}`.pipe(
          Effect.orDie,
          Effect.flatMap(only)
        )),
      findIn: (scope, id) =>
        sql<WebhookRow>`SELECT ${columns} FROM webhooks WHERE ${inScope(scope)} AND id = ${id}`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      listIn: (scope, page) =>
        Effect.all([
          sql<WebhookRow>`SELECT ${columns} FROM webhooks WHERE ${inScope(scope)}
            ORDER BY id LIMIT ${page.limit} OFFSET ${offsetOf(page)}`,
          sql<{ total: unknown }>`SELECT count(*) AS total FROM webhooks WHERE ${inScope(scope)}`
        ]).pipe(Effect.map(([rows, counted]) => ({ items: rows.map(toWebhook), total: totalOf(counted) })), Effect.orDie),
      removeIn: (scope, id) =>
        forgetting(sql<{ id: unknown }>`DELETE FROM webhooks WHERE ${inScope(scope)} AND id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )),
      activeFor: (repositoryId, ownerId) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) => {
          // Read before the hooks are: a change committed meanwhile moves it past what is kept. Not
          // inside a transaction: what it reads may never commit.
          const version = Option.isSome(changes) && Option.isNone(transaction) ? changes.value.accessVersion() : undefined
          const key = `${repositoryId}:${ownerId}`
          const known = version === undefined ? undefined : kept.get(key)
          if (known !== undefined && known.version === version) return Effect.succeed(known.hooks)
          return sql<WebhookRow>`SELECT ${columns} FROM webhooks
            WHERE active AND (repo_id = ${repositoryId} OR owner_id = ${ownerId})
            ORDER BY repo_id IS NULL, id`.pipe(
            Effect.map((rows) => rows.map(toWebhook)),
            Effect.tap((hooks) =>
              Effect.sync(() => {
                if (version === undefined) return
                if (kept.size >= MOST_KEPT) kept.clear()
                kept.set(key, { version, hooks })
              })
            ),
            Effect.orDie
          )
        }),
      find: (id) =>
        sql<WebhookRow>`SELECT ${columns} FROM webhooks WHERE id = ${id}`.pipe(Effect.map(first), Effect.orDie),
      secretOf: (id) =>
        sql<{ secret: string }>`SELECT secret FROM webhooks WHERE id = ${id}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => row.secret)),
          Effect.orDie
        )
    })
  })
)
