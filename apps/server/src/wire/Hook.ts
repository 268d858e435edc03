/**
 * Forgejo's Hook JSON (services/webhook/general.go ToHook) and the options that create and edit
 * a webhook. The secret is write-only: it is read from `config.secret` and never shown. `config`
 * is a JSON object, so urlencoded and multipart bodies cannot carry it, as in Forgejo's form binding.
 */
import { Schema } from "effect"
import { type CreateHookBody, type EditHookBody, hookView, type Webhook } from "@kiln/domain/org/Webhook"
import { optionPayload } from "./OptionSchema.ts"
import { rfc3339 } from "./Time.ts"

const StringMap = Schema.Record(Schema.String, Schema.String)

export const HookJson = Schema.Struct({
  id: Schema.Number,
  type: Schema.String,
  branch_filter: Schema.String,
  url: Schema.String,
  config: StringMap.annotate({ description: "Deprecated: use Metadata instead" }),
  events: Schema.Array(Schema.String),
  authorization_header: Schema.String,
  content_type: Schema.String,
  metadata: Schema.NullOr(Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Number, Schema.Boolean]))),
  active: Schema.Boolean,
  updated_at: Schema.String.annotate({ format: "date-time" }),
  created_at: Schema.String.annotate({ format: "date-time" })
}).annotate({ identifier: "Hook" })
export type HookJson = typeof HookJson.Type

export const toHookJson = (hook: Webhook): HookJson => hookView(hook, rfc3339)

const commonFields = {
  events: { kind: "strings" },
  branch_filter: { kind: "string", description: "a glob of branch names" },
  authorization_header: { kind: "string" },
  active: { kind: "boolean" }
} as const

const [, createForm, createMultipart] = optionPayload("CreateHookOption", {
  type: { kind: "string", required: true },
  ...commonFields,
  is_system_webhook: { kind: "boolean" }
})
const [, editForm, editMultipart] = optionPayload("EditHookOption", commonFields)

const jsonFields = {
  events: Schema.optionalKey(Schema.Array(Schema.String)),
  branch_filter: Schema.optionalKey(Schema.String.annotate({ description: "a glob of branch names" })),
  authorization_header: Schema.optionalKey(Schema.String)
}

const CreateHookOptionJson = Schema.Struct({
  type: Schema.String.annotate({
    description: "forgejo, gitea, gogs, slack, discord, dingtalk, telegram, msteams, feishu, matrix, wechatwork, packagist or sourcehut_builds"
  }),
  config: StringMap.annotate({ description: "`url` and `content_type` (`json` or `form`) are required; `secret` is never returned" }),
  ...jsonFields,
  active: Schema.optionalKey(Schema.Boolean.annotate({ default: false })),
  is_system_webhook: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "CreateHookOption" })

const EditHookOptionJson = Schema.Struct({
  config: Schema.optionalKey(StringMap),
  ...jsonFields,
  active: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "EditHookOption" })

/** JSON (with `config`), urlencoded and multipart, as `optionPayload` builds them. */
export const CreateHookOption = [CreateHookOptionJson, createForm, createMultipart] as const
export const EditHookOption = [EditHookOptionJson, editForm, editMultipart] as const

type CreateHookPayload = typeof CreateHookOptionJson.Type | typeof createForm.Type
type EditHookPayload = typeof EditHookOptionJson.Type | typeof editForm.Type

const configOf = (body: CreateHookPayload | EditHookPayload) => "config" in body ? body.config : undefined

export const toCreateHookBody = (body: CreateHookPayload): CreateHookBody => ({
  type: body.type,
  config: configOf(body),
  events: body.events,
  branchFilter: body.branch_filter,
  authorizationHeader: body.authorization_header,
  active: body.active
})

export const toEditHookBody = (body: EditHookPayload): EditHookBody => ({
  config: configOf(body),
  events: body.events,
  branchFilter: body.branch_filter,
  authorizationHeader: body.authorization_header,
  active: body.active
})
