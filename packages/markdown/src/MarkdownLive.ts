/**
 * The `Markdown` port over the worker pool: refuses text over the size limit, resolves the
 * `@mentions` in one batched `MentionableUsers` lookup, answers repeated renders from the cache,
 * fails with `MarkdownTimeout` when a render overruns the time limit, with `MarkdownTooComplex` when
 * it needs more memory than a render may have or makes more HTML than it may answer, and with
 * `MarkdownBusy` when the pool's queue is full.
 */
import { Markdown } from "@kiln/domain/markdown/Markdown"
import { MarkdownBusy, MarkdownTimeout, MarkdownTooComplex, MarkdownTooLarge } from "@kiln/domain/markdown/MarkdownErrors"
import { MentionableUsers } from "@kiln/domain/markdown/MentionableUsers"
import { type MarkdownInput, renderKindOf, renderRequest } from "@kiln/domain/markdown/RenderRequest"
import { Effect, Layer } from "effect"
import { mentionCandidates } from "./postprocess/Mentions.ts"
import { makeRenderCache, type RenderCache, renderCacheKey } from "./RenderCache.ts"
import { makeWorkerPool, type WorkerPool } from "./worker/WorkerPool.ts"

export interface MarkdownOptions {
  /** KILN_MARKDOWN_MAX_SIZE: the largest text accepted, in UTF-8 bytes. */
  readonly maxSize: number
  /** The per-render time limit. */
  readonly timeoutMillis: number
  /** KILN_ROOT_URL. */
  readonly rootUrl: string
  /** Render workers (processes); one per core when absent. */
  readonly workers?: number | undefined
  /** KILN_MARKDOWN_MAX_QUEUE: renders that may wait for a worker; more are refused as busy. */
  readonly maxQueued?: number | undefined
  readonly cache?: {
    readonly maxEntries: number
    readonly maxChars: number
    readonly ttlMillis: number
  } | undefined
}

const defaultCache = { maxEntries: 256, maxChars: 32 * 1024 * 1024, ttlMillis: 60_000 }

/** The service over a running pool and a cache (the pool's time limit is `options.timeoutMillis`). */
export const makeMarkdown = (
  options: MarkdownOptions,
  pool: WorkerPool,
  cache: RenderCache,
  users: MentionableUsers["Service"]
): Markdown["Service"] => {
  const render = Effect.fn("Markdown.render")(function*(input: MarkdownInput) {
    if (input.text === "") return ""
    const size = Buffer.byteLength(input.text, "utf8")
    if (size > options.maxSize) {
      return yield* new MarkdownTooLarge({
        message: `markdown text is ${size} bytes, more than the limit of ${options.maxSize} bytes`,
        size,
        limit: options.maxSize
      })
    }
    const request = renderRequest(input, options.rootUrl)
    const candidates = renderKindOf(request.mode) === "raw" ? [] : mentionCandidates(request.text)
    const mentionable = candidates.length === 0 ? new Set<string>() : yield* users.existing(candidates)
    const key = renderCacheKey(request, mentionable)
    const cached = cache.get(key)
    if (cached !== undefined) return cached
    const outcome = yield* Effect.promise((signal) => pool.render(request, [...mentionable], signal))
    if (outcome._tag === "Busy") {
      return yield* new MarkdownBusy({
        message: "the markdown renderer is busy; try again later",
        // About one render time limit: by then a full queue has moved on.
        retryAfterSeconds: Math.max(1, Math.ceil(options.timeoutMillis / 1000))
      })
    }
    if (outcome._tag === "TimedOut") {
      return yield* new MarkdownTimeout({
        message: `rendering the markdown took longer than ${options.timeoutMillis} ms and was stopped`,
        timeoutMillis: options.timeoutMillis
      })
    }
    if (outcome._tag === "TooComplex") {
      return yield* new MarkdownTooComplex({
        message: "rendering the markdown needed more memory, or made more HTML, than a render may have and was stopped"
      })
    }
    cache.set(key, outcome.html)
    return outcome.html
  })
  return Markdown.of({ render })
}

export const MarkdownLive = (options: MarkdownOptions): Layer.Layer<Markdown, never, MentionableUsers> =>
  Layer.effect(
    Markdown,
    Effect.gen(function*() {
      const users = yield* MentionableUsers
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => makeWorkerPool({ size: options.workers, timeoutMillis: options.timeoutMillis, maxQueued: options.maxQueued })),
        (pool) => Effect.promise(() => pool.close())
      )
      return makeMarkdown(options, pool, makeRenderCache(options.cache ?? defaultCache), users)
    })
  )
