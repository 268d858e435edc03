/**
 * A request body refused while a route reads it (too large, too many fields, too deep, text that
 * cannot be stored). HttpApi's decoders read bodies with `orDie`, so the refusal travels as a
 * defect and answers for itself: its status and message, which the error shaping turns into
 * Forgejo's `{"message","url"}`. The message never repeats the body's bytes.
 */
import { Data, Effect } from "effect"
import { HttpServerRespondable, HttpServerResponse } from "effect/http"

export class BodyRefusal extends Data.TaggedError("BodyRefusal")<{
  readonly status: 413 | 422
  readonly message: string
}> implements HttpServerRespondable.Respondable {
  [HttpServerRespondable.symbol]() {
    return Effect.succeed(HttpServerResponse.text(this.message, { status: this.status }))
  }
}

export const tooLarge = (limit: number) => new BodyRefusal({ status: 413, message: `request body is larger than ${limit} bytes` })

export const invalidField = (field: string) => new BodyRefusal({ status: 422, message: `[${field}]: Invalid` })
