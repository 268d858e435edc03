/** The port that renders markdown to sanitized HTML, as Forgejo's renderer would. */
import { Context, type Effect } from "effect"
import type { MarkdownBusy, MarkdownTimeout, MarkdownTooComplex, MarkdownTooLarge } from "./MarkdownErrors.ts"
import type { MarkdownInput } from "./RenderRequest.ts"

export class Markdown extends Context.Service<Markdown, {
  /**
   * Renders `input` (resolved against the instance root URL the implementation is configured with).
   * Empty text renders to the empty string. The HTML ends with a newline after the last block.
   */
  readonly render: (input: MarkdownInput) => Effect.Effect<string, MarkdownTooLarge | MarkdownTimeout | MarkdownTooComplex | MarkdownBusy>
}>()("@kiln/domain/markdown/Markdown") {}
