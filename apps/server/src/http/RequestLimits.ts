/**
 * The body limit every route starts from: KILN_HTTP_MAX_BODY_SIZE, set in the context for any
 * reader that takes its limit from there. It reads nothing: API routes read their bodies with their
 * own limits (bodies/RequestBodies.ts), uploads stream to storage under theirs, git pushes stream
 * unlimited (`exempt`). A read cut off at the limit by the platform answers 413.
 */
import { ByteSize, Cause, Effect } from "effect"
import { HttpIncomingMessage, HttpServerResponse } from "effect/http"
import { withRequest } from "./ServedRequest.ts"

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
}) =>
<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  withRequest((request) => {
    // Without a length or a chunked encoding there is no body to limit (most GETs).
    const length = request.headers["content-length"]
    if ((length === undefined || length === "0") && request.headers["transfer-encoding"] === undefined) return app
    if (options.exempt?.(request.url) === true) return app
    return app.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(options.maxBodySize)),
      Effect.catchCause((cause) =>
        Cause.hasDies(cause) && cause.reasons.some((reason) => Cause.isDieReason(reason) && isBodyTooLarge(reason.defect))
          ? Effect.succeed(tooLarge(options.errorUrl, options.maxBodySize))
          : Effect.failCause(cause)
      )
    )
  })
