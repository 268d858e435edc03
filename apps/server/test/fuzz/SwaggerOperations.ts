/**
 * The operations of the served Swagger 2.0 document, and fast-check arbitraries of valid requests
 * to them: path parameters naming the seeded resources (FuzzServer.ts), query values and bodies
 * generated from the declared schemas.
 */
import fc from "fast-check"

export interface SwaggerSchema {
  readonly type?: string
  readonly $ref?: string
  readonly properties?: Record<string, SwaggerSchema>
  readonly required?: ReadonlyArray<string>
  readonly items?: SwaggerSchema
  readonly enum?: ReadonlyArray<unknown>
  readonly allOf?: ReadonlyArray<SwaggerSchema>
  /** The encodings one body may take (JSON first, then its form twin); a Swagger 2.0 extension. */
  readonly "x-anyOf"?: ReadonlyArray<SwaggerSchema>
}

export interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "body" | "formData" | "header"
  readonly type?: string
  readonly required?: boolean
  readonly enum?: ReadonlyArray<unknown>
  readonly schema?: SwaggerSchema
}

export interface Operation {
  readonly method: string
  /** The path template under the base path, e.g. `/repos/{owner}/{repo}`. */
  readonly template: string
  readonly parameters: ReadonlyArray<Parameter>
  readonly consumes: ReadonlyArray<string>
}

export interface SwaggerDocument {
  readonly basePath: string
  readonly paths: Record<string, Record<string, { parameters?: ReadonlyArray<Parameter>; consumes?: ReadonlyArray<string> }>>
  readonly definitions: Record<string, SwaggerSchema>
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"])

export const operationsOf = (document: SwaggerDocument): ReadonlyArray<Operation> =>
  Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item).filter(([method]) => METHODS.has(method)).map(([method, operation]) => ({
      method: method.toUpperCase(),
      template,
      parameters: operation.parameters ?? [],
      consumes: operation.consumes ?? ["application/json"]
    }))
  )

/** The seeded resource each path parameter names, by the parameter's name and route. */
export const validPathValue = (template: string, name: string): string => {
  switch (name) {
    case "owner":
      return template.includes("/orgs/") ? "fuzzorg" : "fuzzer"
    case "username":
    case "collaborator":
      return "fuzzer"
    case "org":
      return "fuzzorg"
    case "repo":
      return "fuzzrepo"
    case "branch":
    case "ref":
    case "sha":
      return "main"
    case "tag":
      return "v1"
    case "filepath":
      return "README.md"
    case "quotagroup":
      return "fuzzgroup"
    case "quotarule":
      return "fuzzrule"
    default:
      return "1"
  }
}

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/)

/** The schema a reference names; of several encodings, the JSON one (listed first). */
export const resolve = (document: SwaggerDocument, schema: SwaggerSchema): SwaggerSchema => {
  const json = schema["x-anyOf"]?.[0]
  if (json !== undefined) return resolve(document, json)
  return schema.$ref !== undefined ? document.definitions[schema.$ref.replace("#/definitions/", "")] ?? {} : schema
}

/** A value of the schema, as a client following the document would send it. */
export const valueOf = (document: SwaggerDocument, given: SwaggerSchema, depth = 0): fc.Arbitrary<unknown> => {
  const schema = resolve(document, given)
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum)
  switch (schema.type ?? (schema.properties !== undefined ? "object" : "string")) {
    case "object": {
      if (depth > 3 || schema.properties === undefined) return fc.constant({})
      const keys = Object.keys(schema.properties)
      const required = schema.required ?? []
      return fc.record(
        Object.fromEntries(keys.map((key) => [key, valueOf(document, schema.properties?.[key] ?? {}, depth + 1)])),
        { requiredKeys: keys.filter((key) => required.includes(key)) }
      )
    }
    case "array":
      return fc.array(valueOf(document, schema.items ?? {}, depth + 1), { maxLength: 3 })
    case "integer":
      return fc.integer({ min: 0, max: 1000 })
    case "number":
      return fc.double({ min: 0, max: 1000, noNaN: true })
    case "boolean":
      return fc.boolean()
    default:
      return word
  }
}

export const queryValueOf = (parameter: Parameter): fc.Arbitrary<string> => {
  if (parameter.enum !== undefined && parameter.enum.length > 0) return fc.constantFrom(...parameter.enum.map(String))
  switch (parameter.type) {
    case "integer":
      return fc.integer({ min: 0, max: 60 }).map(String)
    case "boolean":
      return fc.boolean().map(String)
    default:
      return word
  }
}

export interface Request {
  readonly method: string
  /** Each path parameter's raw (already percent-encoded) segment. */
  readonly path: Record<string, string>
  /** Raw (already percent-encoded) query values. */
  readonly query: Record<string, string>
  /** A JSON value, or raw text with its content type. */
  readonly body?: { readonly json: unknown } | { readonly raw: string; readonly contentType: string } | undefined
}

export const validRequest = (document: SwaggerDocument, operation: Operation): fc.Arbitrary<Request> => {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === "path")
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === "query")
  const body = operation.parameters.find((parameter) => parameter.in === "body")
  const path = Object.fromEntries(pathParameters.map((parameter) =>
    [parameter.name, encodeURIComponent(validPathValue(operation.template, parameter.name))]
  ))
  const query = fc.record(
    Object.fromEntries(queryParameters.map((parameter) => [parameter.name, queryValueOf(parameter).map(encodeURIComponent)])),
    { requiredKeys: [] }
  )
  const json = body?.schema === undefined ? fc.constant(undefined) : valueOf(document, body.schema)
  return fc.record({ query, json }).map(({ query, json }) => ({
    method: operation.method,
    path,
    query: Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    body: json === undefined ? undefined : { json }
  }))
}

/** The request's path and query string under the base path. */
export const urlOf = (basePath: string, operation: Operation, request: Request): string => {
  const path = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => request.path[name] ?? "x")
  const query = Object.entries(request.query).map(([key, value]) => `${encodeURIComponent(key)}=${value}`).join("&")
  return `${basePath}${path}${query === "" ? "" : `?${query}`}`
}
