/**
 * The port for the files of an auto-initialised repository: the built-in `readme`, `gitignores` and
 * `license` templates, rendered by an adapter (the templates are files of `@kiln/git`).
 */
import { Context, type Effect } from "effect"
import type { Invalid } from "../errors.ts"
import type { InitialFile } from "../git/GitStorage.ts"

export interface TemplateChoice {
  readonly owner: string
  readonly name: string
  readonly description: string
  readonly year: number
  readonly readme: string
  readonly gitignores: ReadonlyArray<string>
  readonly license?: string
}

export class InitialFiles extends Context.Service<InitialFiles, {
  /** Invalid (with Forgejo's wording) for an unknown template name. */
  readonly render: (choice: TemplateChoice) => Effect.Effect<ReadonlyArray<InitialFile>, Invalid>
}>()("@kiln/domain/repo/InitialFiles") {}
