/**
 * Reading Forgejo's MarkdownOption `{Text, Mode, Context, Wiki}` from a JSON body. Go's decoder
 * matches keys case-insensitively (an exact match wins), leaves absent or `null` fields at their
 * zero value, and fails on a wrong type: that failure is the endpoint's 422.
 */
import { Effect } from "effect"
import { Invalid } from "../errors.ts"
import type { MarkdownInput } from "./RenderRequest.ts"

const fields = { text: "Text", mode: "Mode", context: "Context", wiki: "Wiki" } as const
type Field = keyof typeof fields

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The value under `field`, preferring the exact Go field name over other spellings. */
const lookup = (body: Readonly<Record<string, unknown>>, field: Field): unknown => {
  const goName = fields[field]
  if (goName in body) return body[goName]
  const key = Object.keys(body).find((k) => k.toLowerCase() === field)
  return key === undefined ? undefined : body[key]
}

const invalid = (field: Field, expected: string) =>
  new Invalid({ message: `json: cannot unmarshal into Go struct field MarkdownOption.${fields[field]} of type ${expected}`, field: fields[field] })

const stringField = (body: Readonly<Record<string, unknown>>, field: Field): Effect.Effect<string, Invalid> => {
  const value = lookup(body, field)
  if (value === undefined || value === null) return Effect.succeed("")
  return typeof value === "string" ? Effect.succeed(value) : Effect.fail(invalid(field, "string"))
}

/** Decodes an already-parsed JSON body. */
export const decodeMarkdownOption = (body: unknown): Effect.Effect<MarkdownInput, Invalid> => {
  if (!isRecord(body)) return Effect.fail(new Invalid({ message: "json: cannot unmarshal into Go value of type MarkdownOption" }))
  return Effect.gen(function*() {
    const text = yield* stringField(body, "text")
    const mode = yield* stringField(body, "mode")
    const context = yield* stringField(body, "context")
    const wiki = lookup(body, "wiki")
    if (wiki !== undefined && wiki !== null && typeof wiki !== "boolean") return yield* Effect.fail(invalid("wiki", "bool"))
    return { text, mode, context, wiki: wiki === true }
  })
}
