/** How a refused sign-in (too many attempts, too many at once) is answered: 429 with `Retry-After`. */
import { Option } from "effect"
import { HttpServerResponse } from "effect/http"
import type { SignInOrigin } from "@kiln/domain/auth/Authentication"
import type { SignInThrottled } from "@kiln/domain/auth/SignInLimits"
import { forgejoJson } from "./ErrorResponses.ts"

/**
 * The client's address: the connection's peer, or the client a trusted proxy forwarded for
 * (KILN_TRUSTED_PROXIES; HttpApp applies X-Forwarded-For before any route).
 */
export const signInOrigin = (request: { readonly remoteAddress: Option.Option<string> }): SignInOrigin => ({
  address: Option.getOrUndefined(request.remoteAddress)
})

export const retryAfter = (throttled: SignInThrottled) => ({ "retry-after": String(throttled.retryAfterSeconds) })

export const throttledResponse = (throttled: SignInThrottled, errorUrl: string): HttpServerResponse.HttpServerResponse =>
  forgejoJson({ message: throttled.message, url: errorUrl }, 429).pipe(HttpServerResponse.setHeaders(retryAfter(throttled)))
