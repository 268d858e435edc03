/**
 * The one place where request text is checked before anything reads it: PostgreSQL's `text`
 * refuses NUL bytes and lone UTF-16 surrogates, so no such string may reach a store.
 *
 * - A path segment that is not valid percent-encoded UTF-8, or holds a NUL, names nothing: 404.
 * - A query value holding a NUL (or a lone surrogate): 422 `[Key]: Invalid`.
 * - A JSON body nested deeper than MAX_JSON_DEPTH: 422 `[]: Invalid` (checked without recursion, so
 *   no depth can exhaust the stack of a later reader); a string in it, or a key, holding a NUL or a
 *   lone surrogate: 422 `[Field]: Invalid`, named like Forgejo's binding errors. Urlencoded form
 *   bodies are checked the same way. Bodies that are not valid JSON are left to the route's decoder.
 */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { goFieldName } from "./BindingErrors.ts"
import { forgejoJson } from "./ErrorResponses.ts"
import { NOT_FOUND_MESSAGE } from "./ApiErrors.ts"

/** Forgejo's options nest two or three levels; nothing legitimate comes near this. */
export const MAX_JSON_DEPTH = 32

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
  const segments = decodedSegments(query === -1 ? url : url.slice(0, query))
  return segments === undefined || segments.some((segment) => !isStorableText(segment))
}

/** The first query key whose value (or itself) PostgreSQL cannot store. */
export const unstorableQueryKey = (url: string): string | undefined => {
  const query = url.indexOf("?")
  if (query === -1) return undefined
  for (const [key, value] of new URLSearchParams(url.slice(query + 1))) {
    if (!isStorableText(key) || !isStorableText(value)) return key
  }
  return undefined
}

/**
 * The binding message for a parsed JSON body, or undefined when it is acceptable: its depth and
 * its strings, walked with an explicit stack.
 */
export const jsonBodyProblem = (value: unknown): string | undefined => {
  const stack: Array<{ readonly value: unknown; readonly depth: number; readonly field: string }> = [{ value, depth: 0, field: "" }]
  while (stack.length > 0) {
    const { value: current, depth, field } = stack.pop() as { value: unknown; depth: number; field: string }
    if (typeof current === "string") {
      if (!isStorableText(current)) return `[${field}]: Invalid`
    } else if (typeof current === "object" && current !== null) {
      if (depth >= MAX_JSON_DEPTH) return "[]: Invalid"
      if (Array.isArray(current)) {
        for (const item of current) stack.push({ value: item, depth: depth + 1, field })
      } else {
        for (const [key, item] of Object.entries(current)) {
          const name = depth === 0 ? goFieldName(key) : field
          if (!isStorableText(key)) return `[${name}]: Invalid`
          stack.push({ value: item, depth: depth + 1, field: name })
        }
      }
    }
  }
  return undefined
}

const formBodyProblem = (text: string): string | undefined => {
  for (const [key, value] of new URLSearchParams(text)) {
    if (!isStorableText(key) || !isStorableText(value)) return `[${goFieldName(key)}]: Invalid`
  }
  return undefined
}

const mediaType = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? ""

const hasBody = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-length"] !== undefined && request.headers["content-length"] !== "0") ||
  request.headers["transfer-encoding"] !== undefined

/** The body's problem, reading it only when it is JSON or a urlencoded form (the read is cached for the route). */
const bodyProblem = (request: HttpServerRequest.HttpServerRequest) => {
  if (!hasBody(request)) return Effect.undefined
  const type = mediaType(request)
  if (type === "application/x-www-form-urlencoded") return Effect.map(request.text, formBodyProblem)
  if (type !== "application/json" && !type.endsWith("+json")) return Effect.undefined
  return Effect.map(request.text, (text) => {
    let parsed: unknown
    try {
      // V8 parses without recursion: a deeply nested body cannot exhaust the stack here.
      parsed = JSON.parse(text)
    } catch {
      return undefined
    }
    return jsonBodyProblem(parsed)
  })
}

export const textInputGuard = (errorUrl: string, exempt: (url: string) => boolean) =>
<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (exempt(request.url)) return app
    if (pathNamesNothing(request.url)) {
      return Effect.succeed(forgejoJson({ message: NOT_FOUND_MESSAGE, url: errorUrl, errors: [] }, 404))
    }
    const key = unstorableQueryKey(request.url)
    if (key !== undefined) return Effect.succeed(forgejoJson({ message: `[${goFieldName(key)}]: Invalid`, url: errorUrl }, 422))
    return bodyProblem(request).pipe(
      // An unreadable body (too large, cut off) is the route's to report, as before.
      Effect.catch(() => Effect.undefined),
      Effect.flatMap((problem) =>
        problem === undefined ? app : Effect.succeed(forgejoJson({ message: problem, url: errorUrl }, 422)))
    )
  })
