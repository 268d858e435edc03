/**
 * The port for making tags in a repository on disk (lightweight tags, as Forgejo makes for a
 * release without a message). Reading a tag goes through GitStorage.resolveCommit(`refs/tags/<name>`).
 */
import { Context, type Effect } from "effect"
import type { AlreadyExists, Invalid, NotFound } from "../errors.ts"
import type { GitStorageFailure } from "./GitStorageFailure.ts"
import type { RepositoryLocation } from "./GitStorage.ts"

export class GitTags extends Context.Service<GitTags, {
  /**
   * Creates `refs/tags/<name>` at `commitId`, failing if the tag appeared meanwhile (git's
   * compare-and-swap): AlreadyExists. Invalid for a name git refuses; NotFound for a missing
   * repository or commit.
   */
  readonly createTag: (
    location: RepositoryLocation,
    name: string,
    commitId: string
  ) => Effect.Effect<void, AlreadyExists | Invalid | NotFound | GitStorageFailure>
}>()("@kiln/domain/git/GitTags") {}
