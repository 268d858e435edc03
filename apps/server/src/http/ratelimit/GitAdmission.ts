/**
 * Anonymous git over HTTP spends the client address's request budget, as the API does: one request
 * per clone, fetch or push, its ref advertisement (`info/refs`, which starts a git process), so that
 * an anonymous client cannot start git processes at any rate. A request with Basic credentials (as
 * git reads them) is signed in or refused with 401 before git starts, and limited by its sign-in
 * instead (failed sign-ins, password derivations).
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Option } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { parseAuthorization } from "../Authentication.ts"
import { refusalOf, reserve, spend } from "./Admission.ts"
import type { RateLimiter } from "./RateLimiter.ts"
import { headersOf, retryAfterOf } from "./RateLimitHeaders.ts"
import { pathnameOf } from "../RequestTarget.ts"

const isRefAdvertisement = (url: string): boolean => pathnameOf(url).endsWith("/info/refs")

const hasBasicCredentials = (authorization: string | undefined): boolean => {
  const credentials = parseAuthorization(authorization)
  return Option.isSome(credentials) && credentials.value._tag === "Basic"
}

/** The 429 of an anonymous git request whose address spent its budget; undefined when it may go on. */
export const anonymousGitRefusal = (
  limiter: RateLimiter["Service"],
  request: HttpServerRequest.HttpServerRequest
): HttpServerResponse.HttpServerResponse | undefined => {
  if (!isRefAdvertisement(request.url) || hasBasicCredentials(request.headers["authorization"])) return undefined
  const refusal = reserve(limiter, request, Option.none(), "core")
  // `Retry-After` and the budget's headers come with the answer (RateLimitHeaders).
  return refusal === undefined ? undefined : HttpServerResponse.text(`${refusal}\n`, { status: 429 })
}

/**
 * The same for a request answered without the application (DirectRoutes.ts), from `address`: the
 * 429 the application would answer (with the budget's headers) is written, and true returned.
 */
export const refuseAnonymousGit = (
  limiter: RateLimiter["Service"],
  request: IncomingMessage,
  response: ServerResponse,
  address: string
): boolean => {
  if (!isRefAdvertisement(request.url ?? "/") || hasBasicCredentials(request.headers.authorization)) return false
  const spent = spend(limiter, Option.none(), address, "core")
  if (spent === undefined || !spent.exhausted) return false
  const state = limiter.state(spent.budget)
  response.writeHead(429, {
    "content-type": "text/plain",
    ...headersOf(state, spent.budget.resource),
    "retry-after": retryAfterOf(state)
  })
  response.end(`${refusalOf(spent.budget)}\n`)
  return true
}
