/**
 * Request text checked before routing, where the check reads only the request line: PostgreSQL's
 * `text` refuses NUL bytes and lone UTF-16 surrogates, so no such string may reach a store.
 *
 * - A path segment that is not valid percent-encoded UTF-8, or holds a NUL, names nothing: 404.
 * - A query value holding a NUL (or a lone surrogate): 422 `[Key]: Invalid`.
 *
 * Bodies are checked where each route reads its own, after authentication (bodies/CheckedRequest.ts).
 */
import { Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { goFieldName } from "./BindingErrors.ts"
import { forgejoJson } from "./ErrorResponses.ts"
import { NOT_FOUND_MESSAGE } from "./ApiErrors.ts"
import { formFields } from "./bodies/FormFields.ts"
import { withRequest } from "./ServedRequest.ts"

/** Whether PostgreSQL's `text` can hold the string. */
export const isStorableText = (text: string): boolean => !text.includes("\u0000") && text.isWellFormed()

/** Each segment decoded, or undefined when one is not valid percent-encoded UTF-8. */
const decodedSegments = (pathname: string): ReadonlyArray<string> | undefined => {
  try {
    return pathname.split("/").map(decodeURIComponent)
  } catch {
    return undefined
  }
}

export const pathNamesNothing = (url: string): boolean => {
  const query = url.indexOf("?")
  const path = query === -1 ? url : url.slice(0, query)
  // Without an escape, decoding changes nothing (the common case: no split, no decoding).
  if (!path.includes("%")) return !isStorableText(path)
  const segments = decodedSegments(path)
  return segments === undefined || segments.some((segment) => !isStorableText(segment))
}

/** The first query key whose value (or itself) PostgreSQL cannot store. */
export const unstorableQueryKey = (url: string): string | undefined => {
  const query = url.indexOf("?")
  if (query === -1) return undefined
  // Split in linear time: URLSearchParams is quadratic on `a&a&a&…` (the line's length is bounded, the habit is not).
  for (const [key, value] of formFields(url.slice(query + 1), Number.POSITIVE_INFINITY) ?? []) {
    if (!isStorableText(key) || !isStorableText(value)) return key
  }
  return undefined
}

export const textInputGuard = (errorUrl: string, exempt: (url: string) => boolean) =>
<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  withRequest((request) => {
    if (exempt(request.url)) return app
    if (pathNamesNothing(request.url)) {
      return Effect.succeed(forgejoJson({ message: NOT_FOUND_MESSAGE, url: errorUrl, errors: [] }, 404))
    }
    const key = unstorableQueryKey(request.url)
    return key === undefined ? app : Effect.succeed(forgejoJson({ message: `[${goFieldName(key)}]: Invalid`, url: errorUrl }, 422))
  })
