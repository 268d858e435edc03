/** Spec 4.2: markdown rendered as Forgejo renders it, for signed-in callers. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiPayloadTooLarge, ApiServiceUnavailable, ApiUnauthorized, ApiValidationFailed } from "../http/ApiErrors.ts"
import { RequestBody } from "../http/bodies/RequestBodies.ts"
import { API_PREFIX } from "./Paths.ts"

/** Forgejo's MarkdownOption; its keys are matched case-insensitively (the handler reads the body). */
export const MarkdownOption = Schema.Struct({
  Text: Schema.optionalKey(Schema.String.annotate({ description: "Text markdown to render" })),
  Mode: Schema.optionalKey(Schema.String.annotate({ description: "Mode to render (markdown, comment, wiki, file)" })),
  Context: Schema.optionalKey(Schema.String.annotate({ description: "Context to render" })),
  Wiki: Schema.optionalKey(Schema.Boolean.annotate({ description: "Is it a wiki page?" }))
}).annotate({ identifier: "MarkdownOption" })

export const MarkdownRender = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" }))

const errors = [ApiUnauthorized, ApiPayloadTooLarge, ApiValidationFailed, ApiServiceUnavailable] as const

export class MarkdownApi extends HttpApiGroup.make("miscellaneous-markdown").add(
  HttpApiEndpoint.post("renderMarkdown", "/markdown", { payload: MarkdownOption, success: MarkdownRender, error: [...errors] })
    .annotate(RequestBody, "markdown").annotate(OpenApi.Summary, "Render a markdown document as HTML"),
  HttpApiEndpoint.post("renderMarkdownRaw", "/markdown/raw", {
    payload: Schema.String.pipe(HttpApiSchema.asText()),
    success: MarkdownRender,
    error: [...errors]
  }).annotate(RequestBody, "markdownText").annotate(OpenApi.Summary, "Render raw markdown as HTML")
).prefix(API_PREFIX) {}
