/**
 * A repository path names a repository by a name it had before a rename: the caller, who may see
 * the repository, is sent to its current `owner/name` (Forgejo's `RedirectToRepo`, a 301).
 */
import { Schema } from "effect"

export class RepositoryMoved extends Schema.TaggedError<RepositoryMoved>()("RepositoryMoved", {
  owner: Schema.String,
  name: Schema.String
}) {}
