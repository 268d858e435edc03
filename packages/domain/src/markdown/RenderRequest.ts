/**
 * What a markdown render needs, as Forgejo's `/markdown` endpoints receive it, plus the instance
 * root URL that relative links and mentions resolve against.
 */

/**
 * How Forgejo renders a mode (api-facts §3): only `gfm` (a document) and `comment` get the
 * post-processing pass; every other value, including `markdown`, `wiki` and the empty string,
 * gets the raw renderer.
 */
export type RenderKind = "document" | "comment" | "raw"

export const renderKindOf = (mode: string): RenderKind =>
  mode === "gfm" ? "document" : mode === "comment" ? "comment" : "raw"

/** The repository a render belongs to (the repo-scoped endpoint); issue references resolve into it. */
export interface RepositoryContext {
  readonly owner: string
  readonly name: string
}

/** The caller's part of a render: MarkdownOption `{Text, Mode, Context, Wiki}`. */
export interface MarkdownInput {
  readonly text: string
  /** Any string; see `renderKindOf`. */
  readonly mode: string
  /** A path such as `user/repo` or an absolute http(s) URL; may be empty. */
  readonly context: string
  readonly wiki: boolean
  /** Absent on the top-level endpoint, as in Forgejo. */
  readonly repository?: RepositoryContext | undefined
}

/** A complete render request: the input plus the instance root URL (ending in `/`). */
export interface RenderRequest extends MarkdownInput {
  readonly rootUrl: string
}

/** The input of `POST /markdown/raw`: the whole body, always the raw renderer, no context. */
export const rawMarkdownInput = (text: string): MarkdownInput => ({ text, mode: "markdown", context: "", wiki: false })

export const renderRequest = (input: MarkdownInput, rootUrl: string): RenderRequest => ({
  text: input.text,
  mode: input.mode,
  context: input.context,
  wiki: input.wiki,
  rootUrl: rootUrl.endsWith("/") ? rootUrl : `${rootUrl}/`,
  ...(input.repository === undefined ? {} : { repository: input.repository })
})
