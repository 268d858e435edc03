/**
 * Forgejo's paging: `page`/`limit` query values read leniently, and the `X-Total-Count`
 * and `Link` headers (api-facts §0.7).
 */
import { Effect } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { pageRequest, type PageRequest } from "@kiln/domain/Paging"
import { KilnConfig } from "../config/KilnConfig.ts"

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Go's `ctx.FormInt`: anything that is not an integer, or is one past int64 (`strconv` refuses it), reads as 0. */
export const formInt = (value: string | undefined): number => {
  if (value === undefined || !/^[+-]?\d+$/.test(value.trim())) return 0
  const parsed = BigInt(value.trim())
  return parsed < INT64_MIN || parsed > INT64_MAX ? 0 : Number(parsed)
}

export const pageFromQuery = (query: { readonly page?: string | undefined; readonly limit?: string | undefined }, maxLimit?: number): PageRequest =>
  pageRequest(formInt(query.page), formInt(query.limit), maxLimit)

/** `next`, `last`, `first`, `prev`, comma-joined, each with the query re-encoded (sorted by key) and `page=N`. */
export const linkHeader = (rootUrl: string, requestUrl: string, page: PageRequest, total: number): string => {
  const url = new URL(requestUrl, "http://internal")
  const lastPage = Math.max(1, Math.ceil(total / page.limit))
  const link = (target: number, rel: string) => {
    const params = new URLSearchParams(url.searchParams)
    params.set("page", String(target))
    params.sort()
    return `<${rootUrl}${url.pathname.replace(/^\//, "")}?${params.toString()}>; rel="${rel}"`
  }
  const links: Array<string> = []
  if (page.page * page.limit < total) links.push(link(page.page + 1, "next"))
  if (page.page < lastPage) links.push(link(lastPage, "last"))
  if (page.page > 1) links.push(link(1, "first"), link(page.page - 1, "prev"))
  return links.join(",")
}

const exposeHeaders = (names: ReadonlyArray<string>) => (response: HttpServerResponse.HttpServerResponse) => {
  const existing = response.headers["access-control-expose-headers"]
  return HttpServerResponse.setHeader(
    response,
    "access-control-expose-headers",
    [existing, ...names].filter((name) => name !== undefined && name !== "").join(", ")
  )
}

/**
 * Adds `X-Total-Count` and `Link` to the response of the current request. `"all"`: the list is not
 * paged, so its one page has no links (what Forgejo's builder gives a single page).
 */
export const setPagingHeaders = (options: {
  readonly total: number
  readonly page: PageRequest | "all"
}): Effect.Effect<void, never, HttpServerRequest.HttpServerRequest | KilnConfig> =>
  Effect.flatMap(Effect.all([HttpServerRequest.HttpServerRequest, KilnConfig]), ([request, config]) =>
    HttpEffect.appendPreResponseHandler((_request, response) => {
      let result = HttpServerResponse.setHeader(response, "x-total-count", String(options.total))
      const names = ["X-Total-Count"]
      if (options.page !== "all") {
        const link = linkHeader(config.rootUrl, request.url, options.page, options.total)
        if (link !== "") {
          result = HttpServerResponse.setHeader(result, "link", link)
          names.push("Link")
        }
      }
      return Effect.succeed(exposeHeaders(names)(result))
    }))
