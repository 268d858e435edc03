/**
 * The request-body limit: a declared length over the limit is refused before reading (413);
 * a chunked body is cut off while it is read and answered with the same 413.
 */
import { Cause, Effect } from "effect"
import { HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "effect/http"
import { ByteSize } from "effect"

const tooLarge = (errorUrl: string, limit: number) =>
  HttpServerResponse.jsonUnsafe(
    { message: `request body is larger than ${limit} bytes`, url: errorUrl },
    { status: 413 }
  )

const isBodyTooLarge = (defect: unknown): boolean => {
  let current: unknown = defect
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    if ((current as { reason?: unknown }).reason === "BodyTooLarge") return true
    current = (current as { reason?: unknown; cause?: unknown }).reason ?? (current as { cause?: unknown }).cause
  }
  return false
}

export const requestLimits = (options: {
  readonly maxBodySize: number
  readonly errorUrl: string
  /** Requests whose bodies stream through unlimited (git pushes). */
  readonly exempt?: (url: string) => boolean
  /** Requests whose bodies have a limit of their own (file uploads). */
  readonly uploads?: { readonly maxSize: number; readonly matches: (method: string, url: string) => boolean }
}) =>
<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (options.exempt?.(request.url) === true) return yield* app
    const limit = options.uploads?.matches(request.method, request.url) === true ? options.uploads.maxSize : options.maxBodySize
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > limit) return tooLarge(options.errorUrl, limit)
    return yield* app.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limit)),
      Effect.catchCause((cause) =>
        Cause.hasDies(cause) && cause.reasons.some((reason) => Cause.isDieReason(reason) && isBodyTooLarge(reason.defect))
          ? Effect.succeed(tooLarge(options.errorUrl, limit))
          : Effect.failCause(cause)
      )
    )
  })
