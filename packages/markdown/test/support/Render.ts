/** Renders in-process, as the worker does, for tests that look at the HTML itself. */
import type { RepositoryContext } from "@kiln/domain/markdown/RenderRequest"
import { renderMarkdown } from "../../src/Pipeline.ts"
import { normalizeHtml } from "./NormalizedHtml.ts"

export const rootUrl = "http://localhost:3000/"

export interface RenderOptions {
  readonly mode?: string
  readonly context?: string
  readonly wiki?: boolean
  readonly repository?: RepositoryContext
  readonly mentionable?: ReadonlyArray<string>
}

export const render = (text: string, options: RenderOptions = {}): string =>
  renderMarkdown(
    {
      text,
      mode: options.mode ?? "gfm",
      context: options.context ?? "",
      wiki: options.wiki ?? false,
      rootUrl,
      repository: options.repository
    },
    new Set(options.mentionable ?? [])
  )

/** The rendered HTML, normalized for comparison. */
export const rendered = (text: string, options: RenderOptions = {}): string => normalizeHtml(render(text, options))
export const html = (value: string): string => normalizeHtml(value)
