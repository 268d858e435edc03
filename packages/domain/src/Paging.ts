/** Page requests and pages, with Forgejo's defaults: 1-based pages of 30, at most 50. */
export interface PageRequest {
  readonly page: number
  readonly limit: number
}

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  /** Matching items before paging. */
  readonly total: number
}

export const DEFAULT_LIMIT = 30
export const MAX_LIMIT = 50

/**
 * The last page number kept as asked: any page past it starts past every row a store can hold,
 * and its offset still fits the stores' integers (so a huge page is an empty page, not an error).
 */
export const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / 1_000_000)

/** Out-of-range values are corrected, never refused, as Forgejo does. */
export const pageRequest = (page: number | undefined, limit: number | undefined, maxLimit = MAX_LIMIT): PageRequest => ({
  page: page === undefined || !Number.isFinite(page) || page <= 0 ? 1 : Math.min(Math.floor(page), MAX_PAGE),
  limit: limit === undefined || !Number.isFinite(limit) || limit <= 0
    ? Math.min(DEFAULT_LIMIT, maxLimit)
    : Math.min(Math.floor(limit), maxLimit)
})

export const offsetOf = (request: PageRequest): number => (request.page - 1) * request.limit
