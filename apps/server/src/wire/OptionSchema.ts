/**
 * Forgejo binds option bodies from JSON, urlencoded forms and multipart forms alike
 * (api-facts §0.6). One field list describes an option; this builds the payload schemas of
 * all three encodings from it, so an endpoint declares the option once.
 */
import { Schema, SchemaGetter } from "effect"
import { HttpApiSchema } from "effect/http-api"

export type FieldKind = "string" | "boolean" | "int" | "strings" | "struct"

export interface FieldSpec {
  readonly kind: FieldKind
  readonly required?: boolean
  readonly description?: string
  /**
   * The fields of a `struct` (a nested Go struct, such as EditRepoOption's `internal_tracker`),
   * described inline: the named definition belongs to the response schema of the same name.
   */
  readonly fields?: Record<string, FieldSpec>
}

type JsonOf<F extends FieldSpec> = F["kind"] extends "string" ? string
  : F["kind"] extends "boolean" ? boolean
  : F["kind"] extends "int" ? number
  : F["kind"] extends "struct" ? (F["fields"] extends Record<string, FieldSpec> ? OptionType<F["fields"]> : never)
  : ReadonlyArray<string>

export type OptionType<Spec extends Record<string, FieldSpec>> =
  & { readonly [K in keyof Spec as Spec[K]["required"] extends true ? K : never]: JsonOf<Spec[K]> }
  & { readonly [K in keyof Spec as Spec[K]["required"] extends true ? never : K]?: JsonOf<Spec[K]> }

const Int64 = Schema.Number.check(Schema.isInt()).annotate({ format: "int64" })

const jsonField = (spec: FieldSpec): Schema.Top => {
  switch (spec.kind) {
    case "string":
      return Schema.String
    case "boolean":
      return Schema.Boolean
    case "int":
      return Int64
    case "strings":
      return Schema.Array(Schema.String)
    case "struct":
      return structOf(spec.fields ?? {}, jsonField)
  }
}

/** Go's strconv.ParseBool, as form binding reads booleans. */
const FormBoolean = Schema.String.pipe(
  Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((text: string) => ["1", "t", "T", "true", "TRUE", "True"].includes(text)),
    encode: SchemaGetter.transform((value: boolean) => String(value))
  })
)

const FormInt = Schema.String.pipe(
  Schema.decodeTo(Int64, {
    decode: SchemaGetter.transform((text: string) => /^[+-]?\d+$/.test(text.trim()) ? Number.parseInt(text, 10) : 0),
    encode: SchemaGetter.transform((value: number) => String(value))
  })
)

/** Form fields; `undefined` for a nested struct, which a form cannot carry (the key is ignored, as Go's form binding does). */
const formField = (spec: FieldSpec): Schema.Top | undefined => {
  switch (spec.kind) {
    case "string":
      return Schema.String
    case "boolean":
      return FormBoolean
    case "int":
      return FormInt
    case "strings":
      return Schema.Array(Schema.String)
    case "struct":
      return undefined
  }
}

const structOf = (spec: Record<string, FieldSpec>, field: (spec: FieldSpec) => Schema.Top | undefined) =>
  Schema.Struct(Object.fromEntries(
    Object.entries(spec).flatMap(([name, fieldSpec]) => {
      const schema = field(fieldSpec)
      if (schema === undefined) return []
      const base = fieldSpec.description === undefined ? schema : schema.annotate({ description: fieldSpec.description })
      return [[name, fieldSpec.required === true ? base : Schema.optionalKey(base)]]
    })
  ))

/**
 * The payload schemas of an option: JSON first (what the API description shows), then the
 * urlencoded and multipart forms. All decode to the same type.
 */
export const optionPayload = <const Spec extends Record<string, FieldSpec>>(identifier: string, spec: Spec) => {
  // The structs are built from the field list at run time, so TypeScript cannot follow their type;
  // `OptionType<Spec>` states it from the same list.
  const json = structOf(spec, jsonField).annotate({ identifier }) as unknown as Schema.Codec<OptionType<Spec>, unknown>
  const form = structOf(spec, formField) as unknown as Schema.Codec<OptionType<Spec>, unknown>
  return [
    json,
    emptyJsonBody(json),
    form.pipe(HttpApiSchema.asFormUrlEncoded()),
    form.pipe(HttpApiSchema.asMultipart())
  ] as const
}

/**
 * Go's JSON binding reads an empty or `null` body as an option with nothing set (the decoder's
 * EOF is ignored), then validates it: `PUT …/collaborators/{c}` with no body adds a writer, an
 * option with required fields answers `[Field]: Required`. A `null` member among an endpoint's JSON
 * schemas also makes the HttpApi decode an empty body as `null`.
 */
const emptyJsonBody = <A>(json: Schema.Codec<A, unknown>) =>
  Schema.Null.pipe(Schema.decodeTo(json, {
    decode: SchemaGetter.transform((): unknown => ({})),
    encode: SchemaGetter.transform((): null => null)
  }))
