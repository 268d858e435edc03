import { Schema } from "effect"

/**
 * The disk or git refused an operation that should have worked (I/O error, lock held by a crashed
 * process, git exiting non-zero). What was asked has not happened: a failed create left nothing
 * behind, a failed remove or move left the repository where it was.
 */
export class GitStorageFailure extends Schema.TaggedError<GitStorageFailure>()("GitStorageFailure", {
  message: Schema.String,
  operation: Schema.String
}) {}
