/**
 * Each API route reads its body with its own limit and parser (CheckedRequest), when it reads it:
 * the payload decoder runs inside the endpoint's middleware, after authentication and the route's
 * gates. This middleware reads nothing; it hands the route a request whose readers know the rules.
 *
 * Routes declare what they read with the `RequestBody` annotation:
 * - `options` (the default): an option body, JSON, form or multipart, up to KILN_HTTP_MAX_BODY_SIZE;
 * - `markdown` / `markdownText`: a document to render, as a JSON option or as raw text, up to twice
 *   KILN_MARKDOWN_MAX_SIZE (room for JSON's escapes; the renderer holds the text to its own limit);
 * - `upload`: a file streamed to storage whatever its type, up to KILN_ATTACHMENT_MAX_SIZE and
 *   a multipart form's framing.
 */
import { ByteSize, Context, Effect, Layer, SchemaAST } from "effect"
import { HttpIncomingMessage, HttpServerRequest } from "effect/http"
import { type HttpApiEndpoint, HttpApiMiddleware } from "effect/http-api"
import { KilnConfig } from "../../config/KilnConfig.ts"
import { type BodyRules, CheckedRequest } from "./CheckedRequest.ts"

export type RequestBodyKind = "options" | "markdown" | "markdownText" | "upload"

export const RequestBody = Context.Reference<RequestBodyKind>("@kiln/server/RequestBody", {
  defaultValue: () => "options"
})

export class RequestBodies extends HttpApiMiddleware.Service<RequestBodies>()("@kiln/server/RequestBodies") {}

/** Room for the multipart framing around a file of `maxSize` bytes (part headers, a `name` field). */
export const uploadBodyLimit = (maxSize: number): number => maxSize + 1024 * 1024

/** The top-level field names of the route's payload schemas, lower-cased. */
const fieldNamesOf = (endpoint: HttpApiEndpoint.Top): ReadonlySet<string> => {
  const names = new Set<string>()
  const collect = (ast: SchemaAST.AST) => {
    for (const side of [ast, SchemaAST.toEncoded(ast)]) {
      if (SchemaAST.isObjects(side)) {
        for (const property of side.propertySignatures) {
          if (typeof property.name === "string") names.add(property.name.toLowerCase())
        }
      } else if (SchemaAST.isUnion(side)) {
        for (const member of side.types) collect(member)
      }
    }
  }
  for (const { encoding, schemas } of endpoint.payload.values()) {
    if (encoding._tag === "Stream") continue
    for (const schema of schemas) collect(schema.ast)
  }
  return names
}

export const layer = Layer.effect(
  RequestBodies,
  Effect.gen(function*() {
    const config = yield* KilnConfig
    const limits: Record<RequestBodyKind, number> = {
      options: config.maxBodySize,
      markdown: Math.max(config.maxBodySize, 2 * config.markdownMaxSize),
      markdownText: Math.max(config.maxBodySize, 2 * config.markdownMaxSize),
      upload: uploadBodyLimit(config.attachmentMaxSize)
    }
    // Endpoints are fixed at start: their rules are worked out once each.
    const rulesByEndpoint = new WeakMap<HttpApiEndpoint.Top, BodyRules>()
    const rulesOf = (endpoint: HttpApiEndpoint.Top): BodyRules => {
      const known = rulesByEndpoint.get(endpoint)
      if (known !== undefined) return known
      const kind = Context.get(endpoint.annotations, RequestBody)
      const rules = { limit: limits[kind], textIsJson: kind === "options" || kind === "markdown", fields: fieldNamesOf(endpoint) }
      rulesByEndpoint.set(endpoint, rules)
      return rules
    }
    return RequestBodies.of((httpEffect, { endpoint }) => {
      const rules = rulesOf(endpoint)
      return httpEffect.pipe(
        Effect.updateService(HttpServerRequest.HttpServerRequest, (request) => new CheckedRequest(request, rules)),
        // For the readers that take the limit from the context (multipart streams).
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(rules.limit))
      )
    })
  })
)
