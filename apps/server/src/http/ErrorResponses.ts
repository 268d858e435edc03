/**
 * The one place every error answer passes through on its way out, whoever made it (a handler,
 * HttpApi's decoder, the router, the platform):
 *
 * - every 4xx is Forgejo's JSON error (`{"message","url"}`) with `Content-Type:
 *   application/json;charset=utf-8`; an empty or plain-text body becomes one, keeping its text as
 *   the message;
 * - every 5xx body is the same generic message with a request id; what caused it (git's error
 *   text, file paths, SQL, a defect's stack) goes only to the log, under that id. The exception is
 *   a 503 with `Retry-After`: a deliberate "busy, come back later", shaped like a 4xx.
 *
 * The package registry (`/api/packages/...`) answers its errors in plain text, as Forgejo's
 * package routes do (`ctx.PlainText`): its 4xx pass as they are, its 5xx get the generic message
 * as text.
 */
import { Cause, Effect } from "effect"
import { HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomBytes } from "node:crypto"
import { NOT_FOUND_MESSAGE } from "./ApiErrors.ts"
import { withRequest } from "./ServedRequest.ts"

export const FORGEJO_JSON = "application/json;charset=utf-8"

/** A JSON body as Forgejo's `ctx.JSON` sends it. */
export const forgejoJson = (body: unknown, status: number): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JSON.stringify(body), { status, contentType: FORGEJO_JSON })

const DEFAULT_MESSAGES: Record<number, string> = {
  400: "Bad Request",
  404: NOT_FOUND_MESSAGE,
  405: "Method Not Allowed",
  413: "Request Entity Too Large",
  415: "Unsupported Media Type"
}

const bodyText = (response: HttpServerResponse.HttpServerResponse): string | undefined =>
  response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : undefined

const contentTypeOf = (response: HttpServerResponse.HttpServerResponse): string | undefined =>
  response.body._tag === "Uint8Array" ? response.body.contentType : response.headers["content-type"]

const isJsonType = (contentType: string | undefined) =>
  contentType !== undefined && /^application\/(.+\+)?json\b/i.test(contentType)

const hasMessage = (text: string): boolean => {
  try {
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === "object" && parsed !== null && typeof (parsed as { message?: unknown }).message === "string"
  } catch {
    return false
  }
}

/** A 4xx as Forgejo shapes it; the other headers the response had (Allow, Retry-After, ...) kept. */
const clientError = (response: HttpServerResponse.HttpServerResponse, errorUrl: string) => {
  const text = bodyText(response)
  if (text !== undefined && isJsonType(contentTypeOf(response)) && hasMessage(text)) {
    return HttpServerResponse.setBody(response, HttpServerResponse.text(text, { contentType: FORGEJO_JSON }).body)
  }
  const plain = text !== undefined && !isJsonType(contentTypeOf(response)) ? text.trim() : ""
  const message = plain !== "" && plain.length <= 200 ? plain : DEFAULT_MESSAGES[response.status] ?? "Bad Request"
  const body = response.status === 404 ? { message, url: errorUrl, errors: [] } : { message, url: errorUrl }
  return HttpServerResponse.setBody(response, forgejoJson(body, response.status).body)
}

export const requestId = (): string => randomBytes(8).toString("hex")

/** The body of every 5xx: nothing of the cause, only where to find it. */
export const internalErrorBody = (id: string, errorUrl: string) => ({
  message: `internal server error (request id ${id}); the server's log has the cause`,
  url: errorUrl,
  request_id: id
})

const serverError = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  cause: Cause.Cause<unknown> | undefined,
  errorUrl: string,
  plainText: boolean
) => {
  const id = requestId()
  const said = bodyText(response)
  return Effect.logError("request failed", ...(cause === undefined || cause.reasons.length === 0 ? [] : [cause])).pipe(
    Effect.annotateLogs({
      request_id: id,
      method: request.method,
      url: request.url,
      status: response.status,
      ...(said === undefined || said === "" ? {} : { response: said })
    }),
    Effect.as(
      HttpServerResponse.setBody(
        response,
        plainText
          ? HttpServerResponse.text(internalErrorBody(id, errorUrl).message).body
          : forgejoJson(internalErrorBody(id, errorUrl), response.status).body
      ).pipe(HttpServerResponse.setHeader("x-request-id", id))
    )
  )
}

const isPackageRegistryPath = (url: string) => url.startsWith("/api/packages/")

const shape = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  cause: Cause.Cause<unknown> | undefined,
  errorUrl: string
) => {
  const plainText = isPackageRegistryPath(request.url)
  const busy = response.status === 503 && response.headers["retry-after"] !== undefined
  if (response.status >= 500 && !busy) return serverError(request, response, cause, errorUrl, plainText)
  if (response.status >= 400 && !plainText) return Effect.succeed(clientError(response, errorUrl))
  return Effect.succeed(response)
}

/**
 * Router-wide: `exempt` requests (git's smart HTTP, which speaks to git clients) pass untouched.
 * A failure is shaped once, with its cause: shaping its answer again would log a second entry,
 * without the cause, under the id the answer names.
 */
export const forgejoErrorResponses = (errorUrl: string, exempt: (url: string) => boolean) =>
<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  withRequest((request) =>
    exempt(request.url) ? app : Effect.matchCauseEffect(app, {
      onFailure: (cause) =>
        // A client that went away needs no answer and the server's log no entry.
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.flatMap(HttpServerError.causeResponse(cause), ([response]) => shape(request, response, cause, errorUrl)),
      onSuccess: (response) => response.status >= 400 ? shape(request, response, undefined, errorUrl) : Effect.succeed(response)
    }))
