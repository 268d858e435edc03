/** Why a render was refused. The HTTP layer answers 413 (too large), 503 (busy) and 422 (the others). */
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

/** Rendering needed more memory than a render may have, or made more HTML than it may answer, and was abandoned. */
export class MarkdownTooComplex extends Schema.TaggedError<MarkdownTooComplex>()("MarkdownTooComplex", {
  message: Schema.String
}) {}

/** Every render worker is busy and the queue is full; the caller may try again after a while. */
export class MarkdownBusy extends Schema.TaggedError<MarkdownBusy>()("MarkdownBusy", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}) {}
