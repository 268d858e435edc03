/**
 * What the pipeline derives from a request, following Forgejo's `routers/common/markup.go`:
 * `gfm`/`comment` join a relative Context to the root URL, the raw renderer takes it as given.
 */
import { type RenderKind, renderKindOf, type RenderRequest, type RepositoryContext } from "@kiln/domain/markdown/RenderRequest"
import { urlJoin } from "./UrlJoin.ts"

export interface RenderSettings {
  readonly kind: RenderKind
  /** Links.Base: relative links and wiki links resolve against it. */
  readonly base: string
  readonly wiki: boolean
  /** Links.Prefix(): the absolute root URL, ending in `/`. */
  readonly rootUrl: string
  /** Where Forgejo serves static assets (custom emoji images): the root URL's path. */
  readonly staticPrefix: string
  readonly repository: RepositoryContext | undefined
  /** Names (as written after `@`) that may be linked as mentions. */
  readonly mentionable: ReadonlySet<string>
}

const httpUrl = /https?:\/\/[^\s]/i

/** Forgejo's `IsWiki` is only set by the full renderer; the raw renderer never sees it. */
export const renderSettings = (request: RenderRequest, mentionable: ReadonlySet<string>): RenderSettings => {
  const kind = renderKindOf(request.mode)
  const rootPath = new URL(request.rootUrl).pathname.replace(/\/$/, "")
  let base = request.context
  // Forgejo joins the context to ROOT_URL unless it is a prefix of AppSubURL+"/" or already a URL.
  if (kind !== "raw" && !`${rootPath}/`.startsWith(base) && !httpUrl.test(base)) base = urlJoin(request.rootUrl, base)
  return {
    kind,
    base,
    wiki: kind !== "raw" && request.wiki,
    rootUrl: request.rootUrl,
    staticPrefix: rootPath,
    repository: request.repository,
    mentionable
  }
}

/** Links.WikiLink(), Links.SrcLink() and Links.ResolveMediaLink(isWiki) without branch information. */
export const wikiLink = (settings: RenderSettings): string => urlJoin(settings.base, "wiki")
export const srcLink = (settings: RenderSettings): string => urlJoin(settings.base, "src")
export const mediaLink = (settings: RenderSettings): string =>
  settings.wiki ? urlJoin(settings.base, "wiki/raw") : settings.base
