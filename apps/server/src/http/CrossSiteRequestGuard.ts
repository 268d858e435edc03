/**
 * A browser that once answered the git routes' `WWW-Authenticate: Basic` challenge sends those
 * credentials with every later request to the site, including a form another site submits. Such a
 * request is refused (403) when it changes state, carries Basic credentials, has a body a plain
 * HTML form can send (urlencoded, multipart or text/plain: the types that need no CORS preflight),
 * and the browser marks it as coming from elsewhere: `Sec-Fetch-Site: cross-site`, or an `Origin`
 * other than the one of KILN_ROOT_URL. Git and API clients send neither marker, so they are
 * unaffected; tokens are never cached by browsers, so they are left alone.
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import type { HttpServerResponse } from "effect/http"
import { forgejoJson } from "./ErrorResponses.ts"

export const CROSS_SITE_MESSAGE = "cross-site requests with browser credentials are not allowed"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"])

/** The content types of an HTML form's `enctype` (CORS "simple" requests). */
const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]

const isFormBody = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const essence = contentType.split(";")[0]?.trim().toLowerCase() ?? ""
  return FORM_TYPES.includes(essence)
}

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

export const crossSiteRequestGuard = (rootUrl: string, errorUrl: string) => {
  const siteOrigin = new URL(rootUrl).origin
  return <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const headers = request.headers
      if (
        SAFE_METHODS.has(request.method.toUpperCase()) ||
        !isBasic(headers["authorization"]) ||
        !isFormBody(headers["content-type"]) ||
        !isCrossSite(headers, siteOrigin)
      ) return app
      return Effect.succeed(forgejoJson({ message: CROSS_SITE_MESSAGE, url: errorUrl }, 403))
    })
}
