import { Schema } from "effect"

/** The signing key could not be created or loaded; start-up stops with `message` (one line, naming the file). */
export class SigningKeyStartupFailed extends Schema.TaggedError<SigningKeyStartupFailed>()("SigningKeyStartupFailed", {
  path: Schema.String,
  message: Schema.String
}) {}
