/**
 * Forgejo's `[cors]` for the API (go-chi/cors with Forgejo's options): with it enabled, a preflight
 * (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered 200 here, with the
 * grant when the origin, method and headers are allowed and without it otherwise; an actual request
 * from an allowed origin gets `Access-Control-Allow-Origin` and `Vary: Origin`. Allowed request
 * headers are Forgejo's: `Authorization` and the OTP headers besides the configured ones. The
 * headers Kiln adds for clients (paging, rate limits, tags) are exposed.
 *
 * With `*` among the allowed origins every grant is a literal `*` and never carries credentials
 * (go-chi/cors answers `*` too, and browsers refuse it with credentials). An origin is reflected,
 * and granted credentials when they are enabled, only when the list names origins and no `*`.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import type { CorsSettings } from "../../config/KilnConfig.ts"
import { withRequest } from "../ServedRequest.ts"

const ALWAYS_ALLOWED_HEADERS = ["Authorization", "X-Gitea-OTP", "X-Forgejo-OTP"]

/** Headers a browser script may read, besides the ones every response exposes. */
export const EXPOSED_HEADERS = [
  "Link", "X-Total-Count", "ETag", "Last-Modified", "Retry-After",
  "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Reset", "X-RateLimit-Resource"
].join(", ")

/** An origin pattern: exact (any case), `*` for all, or one `*` standing for any part of it. */
const originMatcher = (pattern: string): (origin: string) => boolean => {
  const lower = pattern.toLowerCase()
  if (lower === "*") return () => true
  const star = lower.indexOf("*")
  if (star < 0) return (origin) => origin.toLowerCase() === lower
  const prefix = lower.slice(0, star)
  const suffix = lower.slice(star + 1)
  return (origin) => {
    const candidate = origin.toLowerCase()
    return candidate.length >= prefix.length + suffix.length && candidate.startsWith(prefix) && candidate.endsWith(suffix)
  }
}

const isAnyOrigin = (pattern: string) => pattern.trim() === "*"

/** Whether an origin is granted by a listed pattern other than `*`: one the operator named. */
export const listedOrigin = (settings: CorsSettings): (origin: string) => boolean => {
  const listed = settings.allowOrigins.filter((pattern) => !isAnyOrigin(pattern)).map(originMatcher)
  return (origin) => listed.some((matches) => matches(origin))
}

export const corsResponses = (settings: CorsSettings, exempt: (url: string) => boolean) => {
  const origins = settings.allowOrigins.map(originMatcher)
  const originAllowed = (origin: string) => origins.some((matches) => matches(origin))
  const anyOrigin = settings.allowOrigins.some(isAnyOrigin)
  const allowOrigin = (origin: string) => anyOrigin ? "*" : origin
  const credentials = settings.allowCredentials && !anyOrigin ? { "access-control-allow-credentials": "true" } : {}
  const methods = new Set(settings.methods)
  const headers = new Set([...ALWAYS_ALLOWED_HEADERS, ...settings.headers].map((name) => name.toLowerCase()))

  const preflight = (origin: string, method: string, requested: string | undefined) => {
    const vary = { vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers" }
    const asked = (requested ?? "").split(",").map((name) => name.trim()).filter((name) => name !== "")
    const granted = originAllowed(origin) && methods.has(method.toUpperCase()) &&
      asked.every((name) => headers.has(name.toLowerCase()))
    if (!granted) return HttpServerResponse.empty({ status: 200, headers: vary })
    return HttpServerResponse.empty({
      status: 200,
      headers: {
        ...vary,
        "access-control-allow-origin": allowOrigin(origin),
        "access-control-allow-methods": method.toUpperCase(),
        ...(asked.length > 0 ? { "access-control-allow-headers": asked.join(", ") } : {}),
        ...credentials,
        ...(settings.maxAge > 0 ? { "access-control-max-age": String(settings.maxAge) } : {})
      }
    })
  }

  return <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    withRequest((request) => {
      if (exempt(request.url)) return app
      const origin = request.headers["origin"]
      const asked = request.headers["access-control-request-method"]
      if (request.method === "OPTIONS" && origin !== undefined && asked !== undefined) {
        return Effect.succeed(preflight(origin, asked, request.headers["access-control-request-headers"]))
      }
      return Effect.map(app, (response) => {
        if (origin === undefined || !originAllowed(origin)) return HttpServerResponse.setHeader(response, "vary", "Origin")
        const exposed = response.headers["access-control-expose-headers"]
        return HttpServerResponse.setHeaders(response, {
          vary: "Origin",
          "access-control-allow-origin": allowOrigin(origin),
          "access-control-expose-headers": exposed === undefined ? EXPOSED_HEADERS : `${exposed}, ${EXPOSED_HEADERS}`,
          ...credentials
        })
      })
    })
}
