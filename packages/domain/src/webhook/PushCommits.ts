/**
 * The port that reads what a push brought: commits with the files each added, removed and
 * modified (against its first parent), newest first, as Forgejo lists them in a push payload.
 * [modules/repository/commits.go, modules/git/commit.go GetCommitFileStatus]
 */
import { Context, type Effect } from "effect"
import type { RepositoryLocation } from "../git/GitStorage.ts"

export interface PushedCommit {
  readonly id: string
  /** As git stores it, trailing newline included. */
  readonly message: string
  readonly authorName: string
  readonly authorEmail: string
  /** The author's time in its own zone, RFC 3339 (`Z` for UTC), as Go writes a `time.Time`. */
  readonly timestamp: string
  readonly committerName: string
  readonly committerEmail: string
  readonly parents: ReadonlyArray<string>
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly modified: ReadonlyArray<string>
}

export class PushCommits extends Context.Service<PushCommits, {
  /**
   * Commits reachable from `newId` and not from `exclude` (an id or a ref), newest first: at most
   * `limit`, with the count of all. Without `exclude`, the last `limit` commits, counted as listed.
   */
  readonly list: (
    location: RepositoryLocation,
    newId: string,
    exclude: string | undefined,
    limit: number
  ) => Effect.Effect<{ readonly commits: ReadonlyArray<PushedCommit>; readonly total: number }>
}>()("@kiln/domain/webhook/PushCommits") {}
