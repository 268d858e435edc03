/**
 * One effect OpenAPI operation as a Swagger 2.0 operation: `{name}` paths, simple-typed parameters,
 * one `body` (or `formData`) parameter, `consumes`/`produces` from the media types, responses by status.
 */
import { Schema, type SchemaAST } from "effect"
import type { OpenApi } from "effect/http-api"
import { defsRef, flattenSchema, type SwaggerDefinitions } from "./SwaggerDefinitions.ts"
import type { SwaggerOperation, SwaggerParameter, SwaggerResponse } from "./SwaggerDocument.ts"
import type { InlineResponse, SharedResponses } from "./SwaggerResponses.ts"
import { isJsonObject, type SchemaContext, type SwaggerSchema, toSwaggerSchema } from "./SwaggerSchema.ts"
import { requirementsFromOpenApi } from "./SwaggerSecurity.ts"

/**
 * `:name` → `{name}`, a trailing `*` → `{filepath}` (but `:name/*`, a name that may hold slashes
 * such as a branch's, stays `{name}`), `::` → `:`, and the served prefix removed.
 */
export const toSwaggerPath = (path: string, prefix: string, wildcard: string): string => {
  const trimmedPrefix = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix
  const relative = trimmedPrefix !== "" && (path === trimmedPrefix || path.startsWith(`${trimmedPrefix}/`))
    ? path.slice(trimmedPrefix.length)
    : path
  const templated = relative
    .replace(/(^|[^:]):(\w+)/g, (_, before: string, name: string) => `${before}{${name}}`)
    .replaceAll("::", ":")
    .replace(/(\{\w+\})\/\*$/, "$1")
    .replace(/\*$/, `{${wildcard}}`)
  return templated === "" ? "/" : templated
}

const placeholders = (path: string): Array<string> => Array.from(path.matchAll(/\{([^}]+)\}/g), (match) => match[1])

export interface OperationContext {
  readonly operationId: string
  readonly typedParameters: ReadonlyMap<string, SchemaAST.AST>
  readonly wildcard: string
  readonly definitions: SwaggerDefinitions
  readonly responses: SharedResponses
  readonly securityNames: ReadonlyMap<string, string>
}

export const translateOperation = (
  source: OpenApi.OpenAPISpecOperation,
  path: string,
  context: OperationContext
): SwaggerOperation => {
  const parameters = translateParameters(source, path, context)
  const consumes = source.requestBody === undefined ? [] : Object.keys(source.requestBody.content)
  const body = source.requestBody === undefined ? [] : translateBody(source.requestBody.content, context.definitions)

  const produces = new Set<string>()
  const responses: Record<string, SwaggerResponse> = {}
  for (const [status, response] of Object.entries(source.responses)) {
    for (const contentType of Object.keys(response.content ?? {})) produces.add(contentType)
    responses[status] = context.responses.share(translateResponse(response, context.definitions))
  }
  const security = requirementsFromOpenApi(source.security, context.securityNames)
  const extensions = Object.fromEntries(Object.entries(source).filter(([key]) => key.startsWith("x-")))
  const allParameters = [...parameters, ...body]

  return {
    ...(consumes.length > 0 ? { consumes } : {}),
    ...(produces.size > 0 ? { produces: [...produces] } : {}),
    tags: [...source.tags],
    ...(source.summary !== undefined ? { summary: source.summary } : {}),
    ...(source.description !== undefined ? { description: source.description } : {}),
    operationId: context.operationId,
    ...(allParameters.length > 0 ? { parameters: allParameters } : {}),
    responses,
    ...(security.length > 0 ? { security } : {}),
    ...(source.deprecated === true ? { deprecated: true } : {}),
    ...(source.externalDocs !== undefined ? { externalDocs: source.externalDocs } : {}),
    ...extensions
  }
}

const translateParameters = (
  source: OpenApi.OpenAPISpecOperation,
  path: string,
  context: OperationContext
): Array<SwaggerParameter> => {
  const inPath = new Set(placeholders(path))
  const out: Array<SwaggerParameter> = []
  for (const parameter of source.parameters) {
    if (parameter.in === "cookie") continue // Swagger 2.0 has no cookie parameters
    const name = parameter.in === "path" && parameter.name === "*" ? context.wildcard : parameter.name
    if (parameter.in === "path" && !inPath.has(name)) continue
    const typed = context.typedParameters.get(`${parameter.in}:${parameter.name}`)
    const schema = parameterSchema(parameter.schema, typed, context.definitions)
    const description = parameter.description ?? schema.description
    out.push({
      name,
      in: parameter.in,
      ...(parameter.in === "path" || parameter.required ? { required: true } : {}),
      ...(typeof description === "string" ? { description } : {}),
      ...simpleKeywords(schema, parameter.in === "query" ? "multi" : "csv")
    })
  }
  // Every placeholder needs a parameter; raw `:name`s without a params schema arrive as plain strings.
  for (const name of inPath) {
    if (!out.some((parameter) => parameter.in === "path" && parameter.name === name)) {
      out.push({ name, in: "path", required: true, type: "string" })
    }
  }
  return out
}

/**
 * Query and path values arrive as strings, so effect describes an `Int` query parameter as a string
 * with a numeric pattern. Swagger's simple types already mean "the string form of", so the decoded
 * type (`integer`, `number`, `boolean`) is the truer description.
 */
const parameterSchema = (source: unknown, typed: SchemaAST.AST | undefined, definitions: SwaggerDefinitions): SwaggerSchema => {
  const encoded = definitions.flatten(toSwaggerSchema(source, definitions))
  if (encoded.type !== "string" || typed === undefined) return encoded
  const decoded = decodedScalar(typed)
  if (decoded === undefined) return encoded
  const description = encoded.description ?? decoded.description
  return { ...decoded, ...(description !== undefined ? { description } : {}) }
}

const decodedScalar = (ast: SchemaAST.AST): SwaggerSchema | undefined => {
  const document = Schema.toJsonSchemaDocument(Schema.make<Schema.Top>(ast))
  const local: Record<string, SwaggerSchema> = {}
  const context: SchemaContext = {
    rewriteRef: (ref) => ref,
    resolveRef: (ref) => ref,
    hoistDefinition: () => {}
  }
  for (const [name, schema] of Object.entries(document.definitions)) local[name] = toSwaggerSchema(schema, context)
  const schema = flattenSchema(toSwaggerSchema(document.schema, context), (ref) => {
    const name = defsRef.exec(ref)?.[1]
    return name === undefined ? undefined : local[name]
  })
  return schema.type === "integer" || schema.type === "number" || schema.type === "boolean" ? schema : undefined
}

const simpleKeywordNames = [
  "format",
  "enum",
  "default",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "multipleOf"
] as const

const simpleTypes: ReadonlySet<unknown> = new Set(["string", "number", "integer", "boolean", "array"])

/**
 * A string declared with a numeric `format` is a number read as text (e.g. a query value Forgejo parses
 * leniently); Swagger's simple types describe the text form anyway, so it is published as that number.
 */
const numericFormats: Readonly<Record<string, "integer" | "number">> = {
  int32: "integer",
  int64: "integer",
  float: "number",
  double: "number"
}
const stringOnlyKeywords: ReadonlySet<string> = new Set(["pattern", "minLength", "maxLength"])

/** The keywords of a non-body parameter, header or `items`: always a primitive `type`. */
const simpleKeywords = (schema: SwaggerSchema, collectionFormat: "multi" | "csv" | undefined): Record<string, unknown> => {
  const numeric = schema.type === "string" && typeof schema.format === "string" ? numericFormats[schema.format] : undefined
  const out: Record<string, unknown> = { type: numeric ?? (simpleTypes.has(schema.type) ? schema.type : "string") }
  for (const key of simpleKeywordNames) {
    if (schema[key] !== undefined && !(numeric !== undefined && stringOnlyKeywords.has(key))) out[key] = schema[key]
  }
  if (out.type === "array") {
    out.items = simpleKeywords(isJsonObject(schema.items) ? schema.items : {}, undefined)
    if (collectionFormat !== undefined) out.collectionFormat = collectionFormat
  }
  return out
}

const formMediaType = /^(multipart\/form-data|application\/x-www-form-urlencoded)\b/

/**
 * One `body` parameter (JSON preferred, else the first other non-form type); form-only payloads become
 * `formData` parameters, since Swagger 2.0 allows one or the other.
 */
const translateBody = (content: OpenApi.OpenApiSpecContent, definitions: SwaggerDefinitions): Array<SwaggerParameter> => {
  const types = Object.keys(content)
  const bodyType = types.find((type) => type === "application/json") ?? types.find((type) => !formMediaType.test(type))
  if (bodyType !== undefined) {
    return [{ name: "body", in: "body", required: true, schema: toSwaggerSchema(content[bodyType].schema, definitions) }]
  }
  const formType = types[0]
  if (formType === undefined) return []
  const form = definitions.flatten(toSwaggerSchema(content[formType].schema, definitions))
  const required = new Set(Array.isArray(form.required) ? form.required : [])
  const properties = isJsonObject(form.properties) ? form.properties : {}
  return Object.entries(properties).map(([name, property]) => {
    const schema = isJsonObject(property) ? definitions.flatten(property) : {}
    const isFile = schema.type === "string" && schema.format === "binary"
    return {
      name,
      in: "formData",
      ...(required.has(name) ? { required: true } : {}),
      ...(typeof schema.description === "string" ? { description: schema.description } : {}),
      ...(isFile ? { type: "file" } : simpleKeywords(schema, "multi"))
    }
  })
}

const translateResponse = (response: OpenApi.OpenApiSpecResponse, definitions: SwaggerDefinitions): InlineResponse => {
  const content = response.content ?? {}
  const bodyType = Object.keys(content).find((type) => type === "application/json") ?? Object.keys(content)[0]
  const body = bodyType === undefined ? undefined : toSwaggerSchema(content[bodyType].schema, definitions)
  // Swagger 2.0 spells a raw byte response `type: file`.
  const schema = body !== undefined && body.type === "string" && body.format === "binary" ? { type: "file" } : body
  const headers: Record<string, SwaggerSchema> = {}
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    headers[name] = simpleKeywords(definitions.flatten(toSwaggerSchema(header.schema, definitions)), "csv")
  }
  return {
    description: response.description,
    ...(schema !== undefined ? { schema } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {})
  }
}
