/**
 * The repository directories on disk as such, whether or not a row names them: what creation checks
 * before it fills a name, and what the unadopted-repositories admin routes and the doctor list.
 */
import { Context, type Effect, type Option } from "effect"
import type { Invalid, NotFound } from "../errors.ts"
import type { GitStorageFailure } from "./GitStorageFailure.ts"
import type { RepositoryLocation } from "./GitStorage.ts"

export class RepositoryDirectories extends Context.Service<RepositoryDirectories, {
  /** Whether anything (a repository or a leftover file) occupies the directory of `location`. */
  readonly exists: (location: RepositoryLocation) => Effect.Effect<boolean, Invalid>
  /**
   * Every repository directory, as the storage names it (lower-cased owner and name), sorted by
   * owner then name. Work directories of creations and deletions in progress are not listed.
   */
  readonly list: Effect.Effect<ReadonlyArray<RepositoryLocation>, GitStorageFailure>
  /** The branch HEAD names (whether or not it exists); none when HEAD is detached or unreadable. */
  readonly head: (location: RepositoryLocation) => Effect.Effect<Option.Option<string>, NotFound | Invalid>
}>()("@kiln/domain/git/RepositoryDirectories") {}
