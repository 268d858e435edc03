/**
 * Translation of JSON Schema 2020-12 (what effect's OpenAPI 3.1 generator emits) into the Swagger 2.0
 * Schema Object, which is a JSON Schema draft-04 subset without `anyOf`/`oneOf`/`not`, `null`, `const`,
 * tuples or nested `$defs`. Anything Swagger 2.0 cannot say is simplified, never rejected: serving a
 * slightly looser description beats failing the server start.
 */

/** A Swagger 2.0 Schema Object (open: it may carry `x-` vendor extensions). */
export interface SwaggerSchema {
  [keyword: string]: unknown
}

/** Where the translation reads and writes named schemas. */
export interface SchemaContext {
  /** Maps a `$ref` of the source document to its Swagger `#/definitions/...` form. */
  readonly rewriteRef: (ref: string) => string
  /** The source definitions by source `$ref`, to compare union members that point at equal shapes. */
  readonly resolveRef: (ref: string) => unknown
  /** Receives schemas nested under `$defs`/`definitions`, which Swagger only allows at the top level. */
  readonly hoistDefinition: (name: string, schema: SwaggerSchema) => void
}

const copiedKeywords: ReadonlySet<string> = new Set([
  "title",
  "description",
  "default",
  "multipleOf",
  "maximum",
  "minimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxProperties",
  "minProperties",
  "format",
  "readOnly",
  "example",
  "externalDocs",
  "xml"
])

const swaggerTypes: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean", "array", "object"])

/** Effect's JSON codec writes non-finite numbers as these strings; Swagger clients only need `number`. */
const nonFiniteNumberStrings: ReadonlySet<unknown> = new Set(["Infinity", "-Infinity", "NaN"])

/** A JSON object (not an array, not null). */
export const isJsonObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Equality of JSON values as written (key order matters, which holds for values built by the same code). */
export const isSameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

const ownKeys = (schema: SwaggerSchema): number => Object.keys(schema).length

/** Draft-04 requires distinct `enum` items. */
const distinctValues = (values: ReadonlyArray<unknown>): Array<unknown> => {
  const seen = new Set<string>()
  return values.filter((value) => {
    const key = JSON.stringify(value)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** Translates one JSON Schema 2020-12 node (including booleans) into a Swagger 2.0 Schema Object. */
export const toSwaggerSchema = (node: unknown, context: SchemaContext): SwaggerSchema => {
  if (!isJsonObject(node)) return {}
  const out: SwaggerSchema = {}
  let nullable = node.nullable === true

  for (const key of ["$defs", "definitions"]) {
    const nested = node[key]
    if (isJsonObject(nested)) {
      for (const [name, schema] of Object.entries(nested)) context.hoistDefinition(name, toSwaggerSchema(schema, context))
    }
  }

  const type = node.type
  if (typeof type === "string") {
    if (type === "null") nullable = true
    else if (swaggerTypes.has(type)) out.type = type
  } else if (Array.isArray(type)) {
    if (type.includes("null")) nullable = true
    const rest = type.filter((t): t is string => typeof t === "string" && swaggerTypes.has(t))
    if (rest.length === 1) out.type = rest[0]
  }

  for (const [key, value] of Object.entries(node)) {
    if (copiedKeywords.has(key) || key.startsWith("x-")) out[key] = value
  }

  if ("const" in node) {
    if (node.const === null) nullable = true
    else out.enum = [node.const]
  }
  if (Array.isArray(node.enum)) {
    if (node.enum.includes(null)) nullable = true
    const values = distinctValues(node.enum.filter((v) => v !== null))
    if (values.length > 0) out.enum = values
  }
  if (out.example === undefined && Array.isArray(node.examples) && node.examples.length > 0) {
    out.example = node.examples[0]
  }
  // Draft-04 (Swagger) exclusive bounds are flags on minimum/maximum; keep whichever bound is tighter.
  const exclusiveMinimum = node.exclusiveMinimum
  if (typeof exclusiveMinimum === "number" && !(typeof out.minimum === "number" && out.minimum > exclusiveMinimum)) {
    out.minimum = exclusiveMinimum
    out.exclusiveMinimum = true
  } else if (exclusiveMinimum === true) out.exclusiveMinimum = true
  const exclusiveMaximum = node.exclusiveMaximum
  if (typeof exclusiveMaximum === "number" && !(typeof out.maximum === "number" && out.maximum < exclusiveMaximum)) {
    out.maximum = exclusiveMaximum
    out.exclusiveMaximum = true
  } else if (exclusiveMaximum === true) out.exclusiveMaximum = true
  if (node.contentEncoding === "base64" && out.format === undefined) out.format = "byte"
  if (out.type === "integer") {
    // Effect bounds every Int by the safe-integer range; Forgejo's descriptions say int64 instead.
    const safeMinimum = out.minimum === Number.MIN_SAFE_INTEGER
    const safeMaximum = out.maximum === Number.MAX_SAFE_INTEGER
    if (safeMinimum) delete out.minimum
    if (safeMaximum) delete out.maximum
    if ((safeMinimum || safeMaximum) && out.format === undefined) out.format = "int64"
  }

  const items = arrayItems(node, out.type === "array", context)
  if (items !== undefined) out.items = items
  if (isJsonObject(node.properties)) {
    const properties: Record<string, SwaggerSchema> = {}
    for (const [name, schema] of Object.entries(node.properties)) properties[name] = toSwaggerSchema(schema, context)
    out.properties = properties
    // Draft-04 (unlike 2020-12) rejects an empty `required`.
    const required = Array.isArray(node.required)
      ? node.required.filter((name) => typeof name === "string" && name in properties)
      : []
    if (required.length > 0) out.required = required
  }
  if (typeof node.additionalProperties === "boolean") out.additionalProperties = node.additionalProperties
  else if (isJsonObject(node.additionalProperties)) out.additionalProperties = toSwaggerSchema(node.additionalProperties, context)
  else if (isJsonObject(node.patternProperties)) {
    // Records with constrained keys: Swagger can only describe the values.
    const values = Object.values(node.patternProperties)
    out.additionalProperties = values.length === 1 ? toSwaggerSchema(values[0], context) : {}
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) out.allOf = node.allOf.map((member) => toSwaggerSchema(member, context))

  let result = out
  const members = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined
  if (members !== undefined) {
    const union = unionToSwagger(members, context)
    if (union.nullable) nullable = true
    result = combine(union.schema, out)
  }
  if (typeof node.$ref === "string") result = combine({ $ref: context.rewriteRef(node.$ref) }, result)
  return nullable ? combine(result, { "x-nullable": true }) : result
}

/** Swagger's `$ref` ignores siblings, so a reference that gains keywords is wrapped in `allOf`. */
const combine = (base: SwaggerSchema, extra: SwaggerSchema): SwaggerSchema => {
  if (ownKeys(extra) === 0) return base
  if (typeof base.$ref === "string") return { allOf: [base], ...extra }
  return { ...base, ...extra }
}

/** Tuples (`prefixItems`, draft-04 `items: [...]`) become arrays of the one shape their elements share. */
const arrayItems = (node: Record<string, unknown>, isArray: boolean, context: SchemaContext): SwaggerSchema | undefined => {
  const positional = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : []
  const rest = isJsonObject(node.items) ? [node.items] : isJsonObject(node.additionalItems) ? [node.additionalItems] : []
  const all = [...positional, ...rest].map((schema) => toSwaggerSchema(schema, context))
  // Swagger requires `items` on every array.
  if (all.length === 0) return isArray ? {} : undefined
  const [first, ...others] = all
  return others.every((schema) => isSameJson(schema, first)) ? first : {}
}

interface UnionTranslation {
  readonly schema: SwaggerSchema
  readonly nullable: boolean
}

const isNullSchema = (member: unknown): boolean => isJsonObject(member) && member.type === "null"

const isNumeric = (member: unknown): boolean =>
  isJsonObject(member) && (member.type === "number" || member.type === "integer")

const isNonFiniteNumberString = (member: unknown): boolean =>
  isJsonObject(member) && member.type === "string" && Array.isArray(member.enum) &&
  member.enum.every((value) => nonFiniteNumberStrings.has(value))

/** Only `type`/`enum`/`format` (and an optional description) make a member mergeable with its siblings. */
const isPlainScalar = (schema: SwaggerSchema): boolean =>
  typeof schema.type === "string" && schema.type !== "object" && schema.type !== "array" &&
  Object.keys(schema).every((key) => key === "type" || key === "enum" || key === "format" || key === "description")

/**
 * `anyOf`/`oneOf`: `null` members become `x-nullable`, effect's non-finite-number strings are dropped next to
 * a number, references to equal shapes collapse to the first, and scalars of one type merge their enums.
 * Anything else keeps its alternatives in `x-anyOf` on an unconstrained schema, which Swagger tools ignore.
 */
const unionToSwagger = (members: ReadonlyArray<unknown>, context: SchemaContext): UnionTranslation => {
  const nullable = members.some(isNullSchema)
  const hasNumber = members.some(isNumeric)
  const kept = members.filter((member) => !isNullSchema(member) && !(hasNumber && isNonFiniteNumberString(member)))
  const distinct: Array<{ readonly source: unknown; readonly schema: SwaggerSchema }> = []
  for (const member of kept) {
    const shape = isJsonObject(member) && typeof member.$ref === "string" ? context.resolveRef(member.$ref) : member
    if (distinct.some((seen) => isSameJson(seen.source, shape))) continue
    distinct.push({ source: shape, schema: toSwaggerSchema(member, context) })
  }
  const schemas = distinct.map((member) => member.schema)
  if (schemas.length === 0) return { schema: {}, nullable }
  if (schemas.length === 1) return { schema: schemas[0], nullable }
  const scalar = mergeScalars(schemas)
  return { schema: scalar ?? { "x-anyOf": schemas }, nullable }
}

const mergeScalars = (schemas: ReadonlyArray<SwaggerSchema>): SwaggerSchema | undefined => {
  if (!schemas.every(isPlainScalar)) return undefined
  const types = new Set(schemas.map((schema) => schema.type))
  const type = types.size === 1 ? schemas[0].type : [...types].every((t) => t === "number" || t === "integer") ? "number" : undefined
  if (type === undefined) return undefined
  const values: Array<unknown> = []
  for (const schema of schemas) {
    if (!Array.isArray(schema.enum)) return { type }
    values.push(...schema.enum)
  }
  return { type, enum: distinctValues(values) }
}
