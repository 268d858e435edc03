/**
 * Forgejo's shared responses (`#/responses/notFound`, `#/responses/User`, `#/responses/empty`, ...).
 */
import type { SwaggerResponse } from "./SwaggerDocument.ts"
import { isJsonObject, isSameJson, type SwaggerSchema } from "./SwaggerSchema.ts"

/** Forgejo's shared error responses, keyed by the definition their schema references. */
export const forgejoResponseNames: Readonly<Record<string, string>> = {
  APIError: "error",
  APIForbiddenError: "forbidden",
  APIInvalidTopicsError: "invalidTopicsError",
  APINotFound: "notFound",
  APIRepoArchivedError: "repoArchivedError",
  APIUnauthorizedError: "unauthorized",
  APIValidationError: "validationError"
}

/** A response as translated, before it may be replaced by a reference to a shared one. */
export interface InlineResponse {
  readonly description: string
  readonly schema?: SwaggerSchema
  readonly headers?: Record<string, SwaggerSchema>
}

const emptyResponse = { name: "empty", description: "APIEmpty is an empty response" }
/** Effect's description for a body-less response without a description annotation. */
const effectNoContentDescription = "<No Content>"

/**
 * Forgejo's file names its common responses (`#/responses/notFound`, `#/responses/User`,
 * `#/responses/UserList`, `#/responses/empty`); the same are produced here for responses that are a bare
 * reference, a list of one, or no body. A response carrying its own description or headers stays inline.
 */
export class SharedResponses {
  private readonly names: Readonly<Record<string, string>>
  private readonly shared: Record<string, InlineResponse> = {}

  constructor(names: Readonly<Record<string, string>>) {
    this.names = names
  }

  share(response: InlineResponse): SwaggerResponse {
    if (response.headers !== undefined) return response
    if (response.schema === undefined) {
      return response.description === effectNoContentDescription
        ? this.register(emptyResponse.name, { description: emptyResponse.description })
        : response
    }
    const name = this.nameFor(response.schema)
    if (name === undefined) return response
    // effect's fallback descriptions say nothing; Forgejo describes a shared response by its name.
    const generic = response.description === "Success" || response.description === "Error"
    return this.register(name, generic ? { ...response, description: name } : response)
  }

  private nameFor(schema: SwaggerSchema): string | undefined {
    const direct = definitionName(schema)
    if (direct !== undefined) return this.names[direct] ?? direct
    if (schema.type === "array" && isJsonObject(schema.items) && Object.keys(schema).length === 2) {
      const item = definitionName(schema.items)
      if (item !== undefined) return `${item}List`
    }
    return undefined
  }

  private register(name: string, response: InlineResponse): SwaggerResponse {
    const existing = this.shared[name]
    if (existing === undefined) this.shared[name] = response
    else if (!isSameJson(existing, response)) return response
    return { $ref: `#/responses/${name}` }
  }

  all(): Record<string, InlineResponse> {
    return { ...this.shared }
  }
}

const definitionName = (schema: Record<string, unknown>): string | undefined =>
  Object.keys(schema).length === 1 && typeof schema.$ref === "string"
    ? /^#\/definitions\/([^/]+)$/.exec(schema.$ref)?.[1]
    : undefined
