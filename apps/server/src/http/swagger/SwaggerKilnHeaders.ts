/**
 * What the router-wide middleware adds to the answers (issue 21), declared in the description from
 * the same rules that decide it at run time: every operation may answer 429 (a spent rate-limit
 * budget, with `Retry-After`); every GET answering JSON carries `ETag` and may answer 304; every list
 * answers `X-Total-Count` and `Link`; budgets show in `X-RateLimit-*` headers.
 */
import type { SwaggerDocument, SwaggerOperation, SwaggerResponse } from "./SwaggerDocument.ts"
import type { SwaggerSchema } from "./SwaggerSchema.ts"

const integer = (description: string): SwaggerSchema => ({ type: "integer", format: "int64", description })
const text = (description: string): SwaggerSchema => ({ type: "string", description })

export const rateLimitHeaders: Record<string, SwaggerSchema> = {
  "X-RateLimit-Limit": integer("Requests per hour of the caller's budget (absent when the caller has none)"),
  "X-RateLimit-Remaining": integer("Requests left in the current hour"),
  "X-RateLimit-Used": integer("Requests spent in the current hour"),
  "X-RateLimit-Reset": integer("When the budget is renewed, in unix seconds"),
  "X-RateLimit-Resource": text("The budget spent: core or search")
}

const validatorHeaders: Record<string, SwaggerSchema> = {
  ETag: text("Strong entity tag of the JSON body; send it back in If-None-Match"),
  "Last-Modified": text("When the data last changed (repositories, users, releases); for If-Modified-Since")
}

const pagingHeaders: Record<string, SwaggerSchema> = {
  "X-Total-Count": integer("Items in the whole list"),
  Link: text("next, last, first and prev pages, as Forgejo builds them")
}

const NOT_MODIFIED = "notModified"
const TOO_MANY = "tooManyRequests"

const isReference = (response: SwaggerResponse): response is { readonly $ref: string } => "$ref" in response

const withHeaders = (response: SwaggerResponse, headers: Record<string, SwaggerSchema>): SwaggerResponse =>
  isReference(response) ? response : { ...response, headers: { ...response.headers, ...headers } }

const isJsonSuccess = (response: SwaggerResponse | undefined, shared: Record<string, SwaggerResponse>): boolean => {
  if (response === undefined) return false
  const resolved = isReference(response) ? shared[response.$ref.replace("#/responses/", "")] : response
  return resolved !== undefined && !isReference(resolved) && resolved.schema !== undefined && resolved.schema.type !== "file" &&
    resolved.schema.type !== "string"
}

const isList = (response: SwaggerResponse | undefined, shared: Record<string, SwaggerResponse>): string | undefined => {
  if (response === undefined) return undefined
  const name = isReference(response) ? response.$ref.replace("#/responses/", "") : undefined
  const resolved = name === undefined ? response : shared[name]
  return resolved !== undefined && !isReference(resolved) && resolved.schema?.type === "array" ? (name ?? "") : undefined
}

export const declareKilnHeaders = (document: SwaggerDocument): SwaggerDocument => {
  const shared: Record<string, SwaggerResponse> = { ...document.responses }
  const errorSchema: SwaggerSchema = "ApiTooManyRequests" in document.definitions
    ? { $ref: "#/definitions/ApiTooManyRequests" }
    : { type: "object", properties: { message: { type: "string" }, url: { type: "string" } } }
  shared[NOT_MODIFIED] = {
    description: "Not Modified: the copy the request's If-None-Match (or If-Modified-Since) names is current; no body",
    headers: { ...validatorHeaders, ...rateLimitHeaders }
  }
  shared[TOO_MANY] = {
    description: "The caller's rate-limit budget is spent until X-RateLimit-Reset",
    schema: errorSchema,
    headers: { "Retry-After": integer("Seconds until the budget is renewed"), ...rateLimitHeaders }
  }
  const paths: SwaggerDocument["paths"] = {}
  for (const [path, item] of Object.entries(document.paths)) {
    const methods: Record<string, SwaggerOperation> = {}
    for (const [method, operation] of Object.entries(item)) {
      const responses: Record<string, SwaggerResponse> = { ...operation.responses, "429": { $ref: `#/responses/${TOO_MANY}` } }
      const success = responses["200"]
      if (method === "get" && success !== undefined && isJsonSuccess(success, shared)) {
        responses["304"] = { $ref: `#/responses/${NOT_MODIFIED}` }
        const list = isList(success, shared)
        const headers = list === undefined ? { ...validatorHeaders, ...rateLimitHeaders } : { ...pagingHeaders, ...validatorHeaders, ...rateLimitHeaders }
        const listed = list === undefined || list === "" ? undefined : shared[list]
        if (list !== undefined && listed !== undefined) shared[list] = withHeaders(listed, headers)
        else responses["200"] = withHeaders(success, headers)
      }
      methods[method] = { ...operation, responses }
    }
    paths[path] = methods
  }
  return { ...document, paths, responses: shared }
}
