/** The port of the commit status table: statuses per (repository, commit), numbered per commit. */
import { Context, type Effect } from "effect"
import type { Page, PageRequest } from "../Paging.ts"
import type { CommitState, CommitStatus } from "./CommitStatus.ts"

export type NewCommitStatus = Omit<CommitStatus, "id" | "index">

/**
 * Forgejo's `sort` values: newest first by default; `leastindex` is index descending and
 * `highestindex` index ascending (sic).
 */
export const commitStatusSorts = ["newest", "oldest", "recentupdate", "leastupdate", "leastindex", "highestindex"] as const
export type CommitStatusSort = typeof commitStatusSorts[number]

export const commitStatusSortOf = (value: string): CommitStatusSort =>
  commitStatusSorts.find((sort) => sort === value) ?? "newest"

export interface CommitStatusQuery {
  readonly sort: CommitStatusSort
  /** Only statuses in this state. */
  readonly state?: CommitState | undefined
  readonly page: PageRequest
}

export class CommitStatusStore extends Context.Service<CommitStatusStore, {
  /** Stores the status under the next index of its (repository, commit), 1 for the first. */
  readonly insert: (status: NewCommitStatus) => Effect.Effect<CommitStatus>
  /** Every status of the commit; `total` counts the matching ones. */
  readonly list: (repositoryId: number, sha: string, query: CommitStatusQuery) => Effect.Effect<Page<CommitStatus>>
  /**
   * The latest status of each context (`latestPerContext`), paged over contexts ordered by their
   * latest index, newest first; a page's statuses in index order; `total` counts the contexts.
   */
  readonly latest: (repositoryId: number, sha: string, page: PageRequest) => Effect.Effect<Page<CommitStatus>>
}>()("@kiln/domain/git/CommitStatusStore") {}
