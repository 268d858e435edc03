/**
 * One writer at a time for a key, across every process on the database: a per-repository write
 * section (a push and the branch sync after it, a branch change, a rename) holds its repository's
 * key for the whole section, git steps included, so two processes never interleave them.
 */
import { Context, type Effect } from "effect"

export class WriteLocks extends Context.Service<WriteLocks, {
  /**
   * Runs `effect` once no other fiber of any process holds `key`, holding it until `effect` ends
   * (however it ends). Not re-entrant: a section must not ask for its own key again.
   */
  readonly withLock: <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs `effect` holding `key` when nobody holds it; `undefined` at once (without running it) when
   * someone does. For repairs that only make sense when no section is in progress.
   */
  readonly whenFree: <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A | undefined, E, R>
}>()("@kiln/domain/coordination/WriteLocks") {}

/**
 * The key of a repository directory's appearance: held by a section that makes, moves or removes
 * a repository's directory together with its row (until the row commits), and by the deletion of an
 * unadopted directory, which so never sees a directory whose row is about to commit.
 */
export const repositoryDirectoryKey = (location: { readonly owner: string; readonly name: string }): string =>
  `repository-directory:${location.owner.toLowerCase()}/${location.name.toLowerCase()}`

/** The key of a repository's write sections (by id: a rename does not change it). */
export const repositoryKey = (repositoryId: number): string => `repository:${repositoryId}`
