/**
 * The Swagger 2.0 description Forgejo clients read from `/swagger.v1.json`, derived from the same
 * `HttpApi` definition that serves requests.
 *
 * It translates effect's OpenAPI 3.1 output (`OpenApi.fromApi`) rather than re-walking the schemas: that
 * output already resolves what the server actually does (encoded JSON shapes, content types per
 * status, `NoContent`, error unions, `WithHeaders`, middleware security, `Exclude`/`Override`
 * annotations), so the description cannot drift from the router. `HttpApi.reflect` is only consulted
 * for what the OpenAPI output loses: the bare endpoint name for `operationId`, and the decoded type of
 * query/path/header parameters, which effect describes as the strings they arrive as.
 */
import { Context, Option, type Schema, SchemaAST } from "effect"
import { HttpMethod } from "effect/http"
import { HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"
import { SwaggerDefinitions } from "./SwaggerDefinitions.ts"
import { toSwaggerPath, translateOperation } from "./SwaggerOperation.ts"
import { forgejoResponseNames, SharedResponses } from "./SwaggerResponses.ts"
import type { SwaggerSchema } from "./SwaggerSchema.ts"
import { securityFromOpenApi, type SwaggerSecurityRequirement, type SwaggerSecurityScheme } from "./SwaggerSecurity.ts"

export type { SwaggerSchema } from "./SwaggerSchema.ts"
export { forgejoSecurity, forgejoSecurityDefinitions } from "./SwaggerSecurity.ts"
export type { SwaggerSecurityRequirement, SwaggerSecurityScheme } from "./SwaggerSecurity.ts"
export { forgejoResponseNames } from "./SwaggerResponses.ts"

/** A Swagger 2.0 Parameter Object: `schema` for `in: body`, the simple keywords (`type`, ...) otherwise. */
export interface SwaggerParameter {
  readonly name: string
  readonly in: "path" | "query" | "header" | "body" | "formData"
  readonly required?: boolean
  readonly description?: string
  readonly schema?: SwaggerSchema
  readonly [keyword: string]: unknown
}

/** A Swagger 2.0 Response Object, inline or a reference to a shared one in `responses`. */
export type SwaggerResponse =
  | {
    readonly description: string
    readonly schema?: SwaggerSchema
    readonly headers?: Record<string, SwaggerSchema>
  }
  | { readonly $ref: string }

export interface SwaggerOperation {
  readonly consumes?: Array<string>
  readonly produces?: Array<string>
  readonly tags: Array<string>
  readonly summary?: string
  readonly description?: string
  readonly operationId: string
  readonly parameters?: Array<SwaggerParameter>
  readonly responses: Record<string, SwaggerResponse>
  readonly security?: Array<SwaggerSecurityRequirement>
  readonly deprecated?: boolean
  readonly externalDocs?: OpenApi.OpenAPISpecExternalDocs
  readonly [extension: `x-${string}`]: unknown
}

export type SwaggerMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch"

export type SwaggerPathItem = Partial<Record<SwaggerMethod, SwaggerOperation>>

export interface SwaggerTag {
  readonly name: string
  readonly description?: string
  readonly externalDocs?: OpenApi.OpenAPISpecExternalDocs
}

export interface SwaggerLicense {
  readonly name: string
  readonly url?: string
}

export interface SwaggerDocument {
  readonly consumes: Array<string>
  readonly produces: Array<string>
  readonly schemes: Array<"http" | "https">
  readonly swagger: "2.0"
  readonly info: {
    readonly title: string
    readonly version: string
    readonly description?: string
    readonly license?: SwaggerLicense
  }
  readonly basePath: string
  readonly paths: Record<string, SwaggerPathItem>
  readonly definitions: Record<string, SwaggerSchema>
  readonly responses: Record<string, SwaggerResponse>
  readonly securityDefinitions: Record<string, SwaggerSecurityScheme>
  readonly security?: Array<SwaggerSecurityRequirement>
  readonly tags: Array<SwaggerTag>
}

export interface Swagger2Options {
  readonly title: string
  /** `info.version`; Forgejo publishes the placeholder `1.1.1`. */
  readonly version: string
  /** Where the paths are served, e.g. `/api/v1` (with a sub-path: `/forge/api/v1`). */
  readonly basePath: string
  /** The prefix the API's endpoint paths carry, stripped from the described paths. Default: `basePath`. */
  readonly pathPrefix?: string
  readonly description?: string
  readonly license?: SwaggerLicense
  /** Default: `["http", "https"]`. */
  readonly schemes?: ReadonlyArray<"http" | "https">
  /** Default request media types; default `["application/json", "text/plain"]`. */
  readonly consumes?: ReadonlyArray<string>
  /** Default response media types; default `["application/json", "text/html"]`. */
  readonly produces?: ReadonlyArray<string>
  /** Added to the schemes derived from the API's security middleware (e.g. `forgejoSecurityDefinitions`). */
  readonly securityDefinitions?: Readonly<Record<string, SwaggerSecurityScheme>>
  /** The global security requirement (e.g. `forgejoSecurity`); operations without their own inherit it. */
  readonly security?: ReadonlyArray<SwaggerSecurityRequirement>
  /** Shared response names by definition name, merged over Forgejo's (`APINotFound` → `notFound`, ...). */
  readonly responseNames?: Readonly<Record<string, string>>
  /** Name of the path parameter a trailing `*` of an endpoint path becomes. Default: `filepath`. */
  readonly wildcardParameter?: string
  /** A last step over the document: what the server adds to every answer, declared from its rules. */
  readonly decorate?: (document: SwaggerDocument) => SwaggerDocument
}

const swaggerMethods: ReadonlyArray<SwaggerMethod> = ["get", "put", "post", "delete", "options", "head", "patch"]

/**
 * Derives the Swagger 2.0 description of `api`. Throws (as `OpenApi.fromApi` does) when the API cannot
 * be described, e.g. two endpoints share a name: better a failed start than a wrong description.
 */
export const toSwagger2 = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  options: Swagger2Options
): SwaggerDocument => {
  const spec = OpenApi.fromApi(api)
  const endpoints = reflectEndpoints(api)
  const definitions = new SwaggerDefinitions(spec.components.schemas)
  const security = securityFromOpenApi(spec.components.securitySchemes)
  const responses = new SharedResponses({ ...forgejoResponseNames, ...options.responseNames })
  const pathPrefix = options.pathPrefix ?? options.basePath
  const wildcard = options.wildcardParameter ?? "filepath"

  const paths: Record<string, SwaggerPathItem> = {}
  const operationIds = new Set<string>()
  for (const [effectPath, item] of Object.entries(spec.paths)) {
    const path = toSwaggerPath(effectPath, pathPrefix, wildcard)
    for (const method of swaggerMethods) {
      const source = item[method]
      if (source === undefined) continue
      const endpoint = endpoints.get(source.operationId)
      const operation = translateOperation(source, path, {
        operationId: endpoint?.operationId ?? source.operationId,
        typedParameters: endpoint?.typedParameters ?? new Map(),
        wildcard,
        definitions,
        responses,
        securityNames: security.names
      })
      if (operationIds.has(operation.operationId)) {
        throw new Error(`Duplicate Swagger operationId: ${operation.operationId} (endpoint names must be unique)`)
      }
      operationIds.add(operation.operationId)
      paths[path] = { ...paths[path], [method]: operation }
    }
  }

  const info = {
    title: options.title,
    version: options.version,
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.license !== undefined ? { license: options.license } : {})
  }
  const document: SwaggerDocument = {
    consumes: [...(options.consumes ?? ["application/json", "text/plain"])],
    produces: [...(options.produces ?? ["application/json", "text/html"])],
    schemes: [...(options.schemes ?? ["http", "https"])],
    swagger: "2.0",
    info,
    basePath: options.basePath,
    paths,
    definitions: definitions.converted(),
    responses: responses.all(),
    securityDefinitions: { ...security.definitions, ...options.securityDefinitions },
    ...(options.security !== undefined ? { security: options.security.map((requirement) => ({ ...requirement })) } : {}),
    // Several groups may share a tag (Forgejo's `admin` spans users and quota): one entry each.
    tags: spec.tags.filter((tag, index) => spec.tags.findIndex((other) => other.name === tag.name) === index).map((tag) => ({
      name: tag.name,
      ...(tag.description !== undefined ? { description: tag.description } : {}),
      ...(tag.externalDocs !== undefined ? { externalDocs: tag.externalDocs } : {})
    }))
  }
  return options.decorate === undefined ? document : options.decorate(document)
}

// ---------------------------------------------------------------------------------------------------------
// What the OpenAPI output loses, read from the definition itself

interface EndpointFacts {
  readonly operationId: string
  /** Decoded-side schema of each query/path/header parameter, keyed `${in}:${name}`. */
  readonly typedParameters: ReadonlyMap<string, SchemaAST.AST>
}

/** Keyed by the operationId effect generated (`group.endpoint`, or the `Identifier` annotation). */
const reflectEndpoints = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): ReadonlyMap<string, EndpointFacts> => {
  const facts = new Map<string, EndpointFacts>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      const annotated = Context.getOption(endpoint.annotations, OpenApi.Identifier)
      const effectId = Option.isSome(annotated)
        ? annotated.value
        : group.topLevel ? endpoint.identifier : `${group.identifier}.${endpoint.identifier}`
      const typedParameters = new Map<string, SchemaAST.AST>()
      const collect = (schema: Schema.Top | undefined, location: string) => {
        if (schema === undefined) return
        const ast = SchemaAST.toType(schema.ast)
        if (!SchemaAST.isObjects(ast)) return
        for (const property of ast.propertySignatures) typedParameters.set(`${location}:${String(property.name)}`, property.type)
      }
      collect(endpoint.params, "path")
      collect(endpoint.query, "query")
      collect(endpoint.headers, "header")
      // Body-less methods (GET, HEAD, OPTIONS) send their payload as query parameters.
      if (!HttpMethod.hasBody(endpoint.method)) {
        for (const { schemas } of endpoint.payload.values()) {
          for (const schema of schemas) collect(schema, "query")
        }
      }
      facts.set(effectId, { operationId: Option.isSome(annotated) ? annotated.value : endpoint.identifier, typedParameters })
    }
  })
  return facts
}
