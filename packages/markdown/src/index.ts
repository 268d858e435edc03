/** The markdown renderer adapter: Forgejo-compatible rendering behind the domain `Markdown` port. */
export { makeMarkdown, MarkdownLive, type MarkdownOptions } from "./MarkdownLive.ts"
export { renderMarkdown } from "./Pipeline.ts"
export { mentionCandidates } from "./postprocess/Mentions.ts"
export { makeRenderCache, type RenderCache, renderCacheKey } from "./RenderCache.ts"
export { makeWorkerPool, type RenderOutcome, type WorkerPool } from "./worker/WorkerPool.ts"
