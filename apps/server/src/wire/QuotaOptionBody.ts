/**
 * The option bodies of the quota admin endpoints, read by hand. Forgejo binds them like every
 * other option (`bind(...)` in its router): a body that is not JSON and a JSON body that does not
 * fit the option are both binding failures (422, `[Field]: Rule`, `[]` when no field is to blame). The endpoints still declare their option schema, so the API
 * description shows it; their handlers are raw and read the body through this.
 */
import { Effect, Schema } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { ApiErrorsService, ApiValidationFailed } from "../http/ApiErrors.ts"
import { bindingMessage, malformedBodyMessage } from "../http/BindingErrors.ts"

/**
 * Go decodes `null` into a field as "leave it unset", and a `null` body into nothing at all: the
 * same as leaving the keys out. Nulls inside arrays stay, and fail the option's schema.
 */
const withoutNulls = (value: unknown): unknown => {
  if (value === null) return {}
  if (Array.isArray(value)) return value.map((item) => typeof item === "object" && item !== null ? withoutNulls(item) : item)
  if (typeof value !== "object") return value
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== null).map(([key, field]) =>
      [key, typeof field === "object" ? withoutNulls(field) : field]
    )
  )
}

const parseJson = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  // An empty body decodes like `null` in Go's decoder (io.EOF is ignored by the binding).
  if (text.trim() === "") return { ok: true, value: null }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

export const readOptionBody = <S extends Schema.Decoder<unknown>>(
  request: HttpServerRequest.HttpServerRequest,
  schema: S,
  errors: ApiErrorsService
): Effect.Effect<S["Type"], ApiValidationFailed, S["DecodingServices"]> =>
  Effect.gen(function*() {
    const text = yield* Effect.orDie(request.text)
    const parsed = parseJson(text)
    if (!parsed.ok) return yield* errors.validation(malformedBodyMessage(text))
    return yield* Schema.decodeUnknownEffect(schema)(withoutNulls(parsed.value)).pipe(
      Effect.mapError((error) => errors.validation(bindingMessage(error.issue)))
    )
  })
