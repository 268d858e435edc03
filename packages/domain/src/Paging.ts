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

/** Out-of-range values are corrected, never refused, as Forgejo does. */
export const pageRequest = (page: number | undefined, limit: number | undefined, maxLimit = MAX_LIMIT): PageRequest => ({
  page: page === undefined || !Number.isFinite(page) || page <= 0 ? 1 : Math.floor(page),
  limit: limit === undefined || !Number.isFinite(limit) || limit <= 0
    ? Math.min(DEFAULT_LIMIT, maxLimit)
    : Math.min(Math.floor(limit), maxLimit)
})

export const offsetOf = (request: PageRequest): number => (request.page - 1) * request.limit
