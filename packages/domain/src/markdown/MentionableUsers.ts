/**
 * The port the renderer asks which `@name` mentions are users that may be linked
 * (existing, public accounts), as Forgejo's `IsUsernameMentionable`.
 */
import { Context, type Effect } from "effect"

export class MentionableUsers extends Context.Service<MentionableUsers, {
  /**
   * One batched lookup per render. Answers the subset of `names` (spelled exactly as given)
   * that can be mentioned; the comparison with account names is case-insensitive.
   */
  readonly existing: (names: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
}>()("@kiln/domain/markdown/MentionableUsers") {}
