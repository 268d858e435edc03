/** Why a render was refused. The HTTP layer answers 413 and 422 respectively. */
import { Schema } from "effect"

/** The text is larger than the configured limit (`KILN_MARKDOWN_MAX_SIZE`). */
export class MarkdownTooLarge extends Schema.TaggedError<MarkdownTooLarge>()("MarkdownTooLarge", {
  message: Schema.String,
  /** UTF-8 bytes of the text. */
  size: Schema.Number,
  limit: Schema.Number
}) {}

/** Rendering took longer than the per-render time limit and was abandoned. */
export class MarkdownTimeout extends Schema.TaggedError<MarkdownTimeout>()("MarkdownTimeout", {
  message: Schema.String,
  timeoutMillis: Schema.Number
}) {}
