/**
 * `GET /repos/search` (and `GET /user/repos`) as a query: Forgejo's `SearchRepoOptions` reduced to
 * what Kiln stores, with its parameter rules and texts. [routers/api/v1/repo/repo.go Search,
 * models/repo/repo_list.go SearchRepositoryCondition, models/repo/search.go OrderByMap]
 */
import { Effect, Option } from "effect"
import { Invalid } from "../errors.ts"
import type { PageRequest } from "../Paging.ts"
import type { User } from "../user/User.ts"

export const searchSorts = ["alpha", "created", "updated", "size", "git_size", "lfs_size", "stars", "forks", "id"] as const
export type SearchSort = typeof searchSorts[number]

export interface SearchOrder {
  readonly sort: SearchSort
  readonly descending: boolean
}

/**
 * Which repositories a caller may see in a listing, ANDed together:
 * - `public`: public repositories of public owners (anonymous callers, `private=false`);
 * - `accessibleTo`: what `userId` may read (Forgejo's `AccessibleRepositoryCondition`); a restricted
 *   user only through ownership, collaboration and teams.
 */
export type SearchVisibility =
  | { readonly kind: "public" }
  | { readonly kind: "accessibleTo"; readonly userId: number; readonly restricted: boolean }

export interface RepositorySearch {
  /** Comma-separated pieces, trimmed; "" searches nothing. */
  readonly keyword: string
  readonly topicOnly: boolean
  readonly includeDescription: boolean
  /** Repositories this account owns or (unless `collaborate` is false) works on; 0: anyone's. */
  readonly ownerId: number
  /** With `ownerId`: none = owned or collaborative, true = collaborative only, false = owned only. */
  readonly collaborate: Option.Option<boolean>
  /** With `ownerId` and collaboration: count private organization memberships too. */
  readonly includePrivateMemberships: boolean
  readonly fork: Option.Option<boolean>
  readonly mirror: Option.Option<boolean>
  readonly isPrivate: Option.Option<boolean>
  readonly archived: Option.Option<boolean>
  readonly template: Option.Option<boolean>
  readonly visibility: ReadonlyArray<SearchVisibility>
  /** None: by name. */
  readonly order: Option.Option<SearchOrder>
  readonly page: PageRequest
}

/** The raw query parameters (Go's `ctx.FormString`/`FormBool`: "" means unset). */
export interface SearchParameters {
  readonly q?: string | undefined
  readonly topic?: string | undefined
  readonly includeDesc?: string | undefined
  readonly uid?: number | undefined
  readonly private?: string | undefined
  readonly is_private?: string | undefined
  readonly template?: string | undefined
  readonly archived?: string | undefined
  readonly mode?: string | undefined
  readonly exclusive?: string | undefined
  readonly sort?: string | undefined
  readonly order?: string | undefined
}

/** Go's `strconv.ParseBool`, as `ctx.FormBool` reads (anything else is false). */
export const formBool = (value: string | undefined): boolean =>
  value !== undefined && ["1", "t", "T", "true", "TRUE", "True"].includes(value)

const optionalBool = (value: string | undefined): Option.Option<boolean> =>
  value === undefined || value === "" ? Option.none() : Option.some(formBool(value))

const isSearchSort = (value: string): value is SearchSort => searchSorts.some((sort) => sort === value)

/**
 * The visibility filters for `viewer`: with `includePrivate` (signed in, `private` not false, no
 * public-only token) what the viewer may read, unless they are a site admin or ask about their own
 * repositories (`ownerId`); otherwise public repositories of public owners. Restricted viewers are
 * always limited to what they were given.
 */
export const visibilityFor = (
  viewer: Option.Option<User>,
  includePrivate: boolean,
  ownerId: number
): ReadonlyArray<SearchVisibility> => {
  if (Option.isNone(viewer)) return [{ kind: "public" }]
  const user = viewer.value
  const filters: Array<SearchVisibility> = []
  if (!includePrivate) filters.push({ kind: "public" })
  else if (!user.isAdmin && user.id !== ownerId) filters.push({ kind: "accessibleTo", userId: user.id, restricted: user.restricted })
  if (user.restricted && !filters.some((filter) => filter.kind === "accessibleTo")) {
    filters.push({ kind: "accessibleTo", userId: user.id, restricted: true })
  }
  return filters
}

/**
 * The search of `GET /repos/search`. Invalid `Invalid search mode: "x"`, `Invalid sort mode: "x"`,
 * `Invalid sort order: "x"` (422). `publicOnly`: the caller's token is limited to public repositories.
 */
export const parseSearch = (
  viewer: Option.Option<User>,
  params: SearchParameters,
  page: PageRequest,
  publicOnly: boolean
): Effect.Effect<RepositorySearch, Invalid> =>
  Effect.gen(function*() {
    const signed = Option.isSome(viewer)
    const includePrivate = signed && !publicOnly && (params.private === undefined || params.private === "" || formBool(params.private))
    let collaborate: Option.Option<boolean> = formBool(params.exclusive) ? Option.some(false) : Option.none()
    let fork: Option.Option<boolean> = Option.none()
    let mirror: Option.Option<boolean> = Option.none()
    const mode = params.mode ?? ""
    switch (mode) {
      case "source":
        fork = Option.some(false)
        mirror = Option.some(false)
        break
      case "fork":
        fork = Option.some(true)
        break
      case "mirror":
        mirror = Option.some(true)
        break
      case "collaborative":
        mirror = Option.some(false)
        collaborate = Option.some(true)
        break
      case "":
        break
      default:
        return yield* new Invalid({ message: `Invalid search mode: "${mode}"` })
    }
    let order: Option.Option<SearchOrder> = Option.none()
    const sort = params.sort ?? ""
    if (sort !== "") {
      const direction = params.order === undefined || params.order === "" ? "asc" : params.order
      if (direction !== "asc" && direction !== "desc") return yield* new Invalid({ message: `Invalid sort order: "${direction}"` })
      if (!isSearchSort(sort)) return yield* new Invalid({ message: `Invalid sort mode: "${sort}"` })
      order = Option.some({ sort, descending: direction === "desc" })
    }
    const ownerId = params.uid !== undefined && params.uid > 0 ? params.uid : 0
    return {
      keyword: (params.q ?? "").trim(),
      topicOnly: formBool(params.topic),
      includeDescription: formBool(params.includeDesc),
      ownerId,
      collaborate,
      includePrivateMemberships: includePrivate,
      fork,
      mirror,
      isPrivate: optionalBool(params.is_private),
      archived: optionalBool(params.archived),
      template: optionalBool(params.template),
      visibility: visibilityFor(viewer, includePrivate, ownerId),
      order,
      page
    }
  })

/**
 * `order_by` of `GET /user/repos`: `name` (the default) and `id`, and Forgejo's `OrderByFlatMap`
 * (models/repo/search.go), where `size` is ascending (api-facts §7.6).
 */
const ownOrders: Readonly<Record<string, SearchOrder>> = {
  id: { sort: "id", descending: false },
  newest: { sort: "created", descending: true },
  oldest: { sort: "created", descending: false },
  recentupdate: { sort: "updated", descending: true },
  leastupdate: { sort: "updated", descending: false },
  reversealphabetically: { sort: "alpha", descending: true },
  alphabetically: { sort: "alpha", descending: false },
  reversesize: { sort: "size", descending: true },
  size: { sort: "size", descending: false },
  reversegitsize: { sort: "git_size", descending: true },
  gitsize: { sort: "git_size", descending: false },
  reverselfssize: { sort: "lfs_size", descending: true },
  lfssize: { sort: "lfs_size", descending: false },
  moststars: { sort: "stars", descending: true },
  feweststars: { sort: "stars", descending: false },
  mostforks: { sort: "forks", descending: true },
  fewestforks: { sort: "forks", descending: false }
}

/** `GET /user/repos`: the caller's own and collaborative repositories, in `order_by` order (see `ownOrders`). */
export const parseOwnSearch = (
  viewer: User,
  orderBy: string,
  page: PageRequest,
  publicOnly: boolean
): Effect.Effect<RepositorySearch, Invalid> =>
  Effect.gen(function*() {
    const known = Object.hasOwn(ownOrders, orderBy) ? ownOrders[orderBy] : undefined
    const order: Option.Option<SearchOrder> = orderBy === "" || orderBy === "name"
      ? Option.none()
      : known !== undefined
      ? Option.some(known)
      : yield* new Invalid({ message: "invalid order_by" })
    const includePrivate = !publicOnly
    return {
      keyword: "",
      topicOnly: false,
      includeDescription: true,
      ownerId: viewer.id,
      collaborate: Option.none(),
      includePrivateMemberships: includePrivate,
      fork: Option.none(),
      mirror: Option.none(),
      isPrivate: Option.none(),
      archived: Option.none(),
      template: Option.none(),
      visibility: visibilityFor(Option.some(viewer), includePrivate, viewer.id),
      order,
      page
    }
  })

/**
 * The repositories `owner` owns that `viewer` may see, oldest first: `GET /users/{u}/repos`,
 * `GET /orgs/{org}/repos`. `includePrivate`: signed in without a public-only token.
 */
export const ownedBySearch = (
  viewer: Option.Option<User>,
  owner: User,
  includePrivate: boolean,
  page: PageRequest
): RepositorySearch => ({
  keyword: "",
  topicOnly: false,
  includeDescription: false,
  ownerId: owner.id,
  collaborate: Option.some(false),
  includePrivateMemberships: false,
  fork: Option.none(),
  mirror: Option.none(),
  isPrivate: includePrivate ? Option.none() : Option.some(false),
  archived: Option.none(),
  template: Option.none(),
  visibility: visibilityFor(viewer, includePrivate, owner.id),
  order: Option.some({ sort: "id", descending: false }),
  page
})
