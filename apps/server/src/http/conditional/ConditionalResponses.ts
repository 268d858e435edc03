/**
 * Router-wide conditional requests on the API's JSON answers:
 *
 * - every 200 JSON answer to a GET (or HEAD) carries a strong `ETag`, the hash of its body, so the
 *   tag changes exactly when the body does (the caller's permissions and the root URL included);
 * - `If-None-Match` naming it, or `If-Modified-Since` not before the route's `Last-Modified` (when
 *   there is no `If-None-Match`), turn the answer into a `304` without a body;
 * - the tags of answers to conditional requests are remembered (ValidatorCache, bounded by bytes)
 *   with the data version they were read at: while DataChanges reports the same version, the
 *   request asked again is answered from memory, before authentication and the route run. Only
 *   conditional requests are remembered: a client that revalidates asks conditionally every time
 *   after its first answer, while digesting and keeping every plain GET (SHA-256 of the URL and
 *   credentials, a cache entry) cost several percent of a small answer's CPU for the many that
 *   are never asked again. Answers to URLs longer than MAX_REMEMBERED_URL are not remembered (no
 *   client polls such a URL; they would only crowd out the others).
 *
 * Any other answer may have changed data (a write, a download counted), so it moves the version at
 * once, before the notification of its commit comes back (a client reads its own writes), unless it
 * `changesNothing` (the health check, git's advertisements and fetches): those left every remembered
 * answer (and every kept git access decision, GitDecisions.ts) to be read again, once per poll of a
 * load balancer and per git request.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import type { DataChanges } from "@kiln/domain/changes/DataChanges"
import { clientAddress } from "../ratelimit/Admission.ts"
import { forAddress } from "../ratelimit/RateLimiter.ts"
import * as RequestBudgets from "../ratelimit/RequestBudgets.ts"
import { noneMatchHolds, notModifiedSince, tagOf } from "./EntityTag.ts"
import { requestKey, ValidatorCache } from "./ValidatorCache.ts"
import { withRequest } from "../ServedRequest.ts"

/** Longer URLs are answered as usual but never remembered. */
export const MAX_REMEMBERED_URL = 2_048

const isJson = (contentType: string | undefined) => contentType !== undefined && contentType.startsWith("application/json")

const notModified = (etag: string, lastModified: string | undefined) =>
  HttpServerResponse.empty({
    status: 304,
    headers: lastModified === undefined ? { etag } : { etag, "last-modified": lastModified }
  })

/** Whether the request's conditions say the client's copy is current. */
const conditionsHold = (
  headers: { readonly [name: string]: string | undefined },
  etag: string,
  lastModified: string | undefined
): boolean => {
  const noneMatch = headers["if-none-match"]
  if (noneMatch !== undefined) return noneMatchHolds(noneMatch, etag)
  const since = headers["if-modified-since"]
  return since !== undefined && lastModified !== undefined && notModifiedSince(since, lastModified)
}

export const conditionalResponses = (
  changes: DataChanges["Service"],
  options: {
    readonly exempt: (url: string) => boolean
    /** Requests (exempt or not GETs) that change no data: they leave the version where it is. */
    readonly changesNothing: (url: string) => boolean
    /** False for answers read from more than the database (directories on disk): never answered from memory. */
    readonly remembers: (url: string) => boolean
    readonly cache: ValidatorCache
  }
) => {
  const { cache } = options
  const remembers = (url: string) => url.length <= MAX_REMEMBERED_URL && options.remembers(url)
  return <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    withRequest((request) => {
      const method = request.method
      if ((method !== "GET" && method !== "HEAD") || options.exempt(request.url)) {
        return options.changesNothing(request.url) ? app : Effect.ensuring(app, Effect.sync(changes.changed))
      }
      const headers = request.headers
      const conditional = headers["if-none-match"] !== undefined || headers["if-modified-since"] !== undefined
      const version = changes.version()
      const key = conditional && version !== undefined && remembers(request.url) ? requestKey(request.url, headers) : undefined
      if (key !== undefined) {
        const known = cache.get(key)
        if (known !== undefined && known.version === version && conditionsHold(headers, known.etag, known.lastModified)) {
          if (known.budget !== undefined) {
            const budget = forAddress(known.budget.budget, clientAddress(request))
            RequestBudgets.record(request.source, { budget, spends: false, exhausted: false })
          }
          return Effect.succeed(notModified(known.etag, known.lastModified))
        }
      }
      return Effect.map(app, (response) => {
        const body = response.body
        if (body._tag !== "Uint8Array" || !isJson(body.contentType)) {
          changes.changed()
          return response
        }
        if (response.status !== 200) return response
        const etag = tagOf(body.body)
        const lastModified = response.headers["last-modified"]
        if (key !== undefined && version !== undefined) {
          cache.set(key, { version, etag, lastModified, budget: RequestBudgets.recorded(request.source) })
        }
        if (conditional && conditionsHold(headers, etag, lastModified)) {
          return HttpServerResponse.setStatus(HttpServerResponse.setBody(response, HttpServerResponse.empty().body), 304)
            .pipe(HttpServerResponse.setHeader("etag", etag))
        }
        return HttpServerResponse.setHeader(response, "etag", etag)
      })
    })
}
