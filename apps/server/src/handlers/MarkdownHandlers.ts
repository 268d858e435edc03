/**
 * The markdown endpoints read their bodies themselves: MarkdownOption keys are matched
 * case-insensitively (Go's decoder), and `/markdown/raw` takes any content type.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { Markdown } from "@kiln/domain/markdown/Markdown"
import { decodeMarkdownOption } from "@kiln/domain/markdown/MarkdownOption"
import { type MarkdownInput, rawMarkdownInput } from "@kiln/domain/markdown/RenderRequest"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { malformedBodyMessage } from "../http/BindingErrors.ts"
import { forgejoJson } from "../http/ErrorResponses.ts"
import { requireSignedIn } from "../http/Caller.ts"

const html = (body: string) =>
  HttpServerResponse.text(body, { contentType: "text/html; charset=utf-8" })

export const MarkdownHandlers = HandlerGroup.group(Api, "miscellaneous-markdown", [ApiErrors], Effect.fnUntraced(function*(handlers) {
  const markdown = yield* Markdown
  const errors = yield* ApiErrors

  const render = (input: MarkdownInput) =>
    markdown.render(input).pipe(
      Effect.map(html),
      // Busy is an answer with a header, not a failure: 503 and when to come back.
      Effect.catchTag("MarkdownBusy", (busy) =>
        Effect.succeed(
          forgejoJson({ message: busy.message, url: errors.url }, 503).pipe(
            HttpServerResponse.setHeader("retry-after", String(busy.retryAfterSeconds))
          )
        )),
      Effect.mapError((failure) =>
        failure._tag === "MarkdownTooLarge" ? errors.payloadTooLarge(failure.message) : errors.validation(failure.message)
      )
    )

  return handlers
    .handleRaw("renderMarkdown", ({ request }) =>
      Effect.gen(function*() {
        yield* requireSignedIn
        const text = yield* Effect.orDie(request.text)
        let body: unknown
        try {
          body = text === "" ? {} : JSON.parse(text)
        } catch {
          return yield* errors.validation(malformedBodyMessage(text))
        }
        const input = yield* decodeMarkdownOption(body).pipe(Effect.mapError((e) => errors.validation(e.message)))
        return yield* render(input)
      }))
    .handleRaw("renderMarkdownRaw", ({ request }) =>
      Effect.gen(function*() {
        yield* requireSignedIn
        return yield* render(rawMarkdownInput(yield* Effect.orDie(request.text)))
      }))
}))
