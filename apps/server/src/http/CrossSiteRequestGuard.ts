/**
 * A browser that once answered the git routes' `WWW-Authenticate: Basic` challenge sends those
 * credentials with every later request to the site, including one another site makes it send. Such
 * a request is refused (403) when it changes state, carries Basic credentials, and the browser marks
 * it as coming from elsewhere: `Sec-Fetch-Site: cross-site`, or an `Origin` other than the one of
 * KILN_ROOT_URL. Whatever its body: a form, `text/plain`, JSON, a body without a `Content-Type`
 * (`fetch` with a Blob sends none, needs no preflight, and HttpApi reads it as JSON) or no body at
 * all (`POST …/hooks/{id}/tests`). Git and API clients send neither marker, so they are unaffected;
 * tokens are never cached by browsers, so they are left alone; and an origin the CORS settings name
 * explicitly (`trusted`) is the operator's own, which may write through CORS anyway.
 */
import { Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { forgejoJson } from "./ErrorResponses.ts"
import { withRequest } from "./ServedRequest.ts"

export const CROSS_SITE_MESSAGE = "cross-site requests with browser credentials are not allowed"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"])

const isBasic = (authorization: string | undefined): boolean =>
  authorization !== undefined && /^basic\s/i.test(authorization.trimStart())

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

/** Whether the browser says the request comes from another site than the server's own. */
export const isCrossSite = (headers: Readonly<Record<string, string | undefined>>, siteOrigin: string): boolean => {
  if (headers["sec-fetch-site"]?.trim().toLowerCase() === "cross-site") return true
  const origin = headers["origin"]
  // `Origin: null` (sandboxed frames, data: URLs) never matches.
  return origin !== undefined && originOf(origin.trim()) !== siteOrigin
}

export const crossSiteRequestGuard = (
  rootUrl: string,
  errorUrl: string,
  trusted: (origin: string) => boolean = () => false
) => {
  const siteOrigin = new URL(rootUrl).origin
  return <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    withRequest((request) => {
      const headers = request.headers
      if (
        SAFE_METHODS.has(request.method.toUpperCase()) ||
        !isBasic(headers["authorization"]) ||
        !isCrossSite(headers, siteOrigin)
      ) return app
      const origin = headers["origin"]?.trim()
      if (origin !== undefined && origin !== "null" && trusted(origin)) return app
      return Effect.succeed(forgejoJson({ message: CROSS_SITE_MESSAGE, url: errorUrl }, 403))
    })
}
