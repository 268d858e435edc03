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
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const length = request.headers["content-length"]
    // Without a length or a chunked encoding there is no body to limit (most GETs).
    if ((length === undefined || length === "0") && request.headers["transfer-encoding"] === undefined) return app
    if (options.exempt?.(request.url) === true) return app
    const limit = options.uploads?.matches(request.method, request.url) === true ? options.uploads.maxSize : options.maxBodySize
    if (Number(length ?? "0") > limit) return Effect.succeed(tooLarge(options.errorUrl, limit))
    return app.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limit)),
      Effect.catchCause((cause) =>
        Cause.hasDies(cause) && cause.reasons.some((reason) => Cause.isDieReason(reason) && isBodyTooLarge(reason.defect))
          ? Effect.succeed(tooLarge(options.errorUrl, limit))
          : Effect.failCause(cause)
      )
    )
  })
