/**
 * The markdown renderer (render processes) configured from KILN_MARKDOWN_MAX_SIZE and the root URL.
 * Its pool and cache are imported with the first render, not at start, and without the package's
 * index: the index brings the whole unified/remark pipeline (and gemoji), which only the render
 * processes run. Loaded into the server's main thread at the first render, the pipeline held its
 * event loop ~170 ms (every request in flight waited) and added ~20 MB of resident memory.
 */
import { Context, Effect, Layer } from "effect"
import { Markdown } from "@kiln/domain/markdown/Markdown"
import { MentionableUsers } from "@kiln/domain/markdown/MentionableUsers"
import * as MentionableUsersSql from "@kiln/postgres/stores/MentionableUsersSql"
import { KilnConfig } from "./config/KilnConfig.ts"
import { countingRender } from "./metrics/ServerMetrics.ts"

/** A render that takes longer is stopped and answered with 422. */
export const RENDER_TIME_LIMIT_MILLIS = 5_000

export const layer = Layer.effect(
  Markdown,
  Effect.gen(function*() {
    const config = yield* KilnConfig
    const users = yield* MentionableUsers
    // The renderer's worker pool lives as long as this layer, however late it starts.
    const scope = yield* Effect.scope
    const renderer = yield* Effect.cached(
      Effect.promise(() => import("@kiln/markdown/MarkdownLive")).pipe(
        Effect.flatMap(({ MarkdownLive }) =>
          Layer.buildWithScope(
            MarkdownLive({
              maxSize: config.markdownMaxSize,
              maxQueued: config.markdownMaxQueue,
              timeoutMillis: RENDER_TIME_LIMIT_MILLIS,
              rootUrl: config.rootUrl
            }),
            scope
          )
        ),
        Effect.map((built) => Context.get(built, Markdown)),
        Effect.provideService(MentionableUsers, users)
      )
    )
    return Markdown.of({ render: (input) => countingRender(Effect.flatMap(renderer, (markdown) => markdown.render(input))) })
  })
).pipe(Layer.provide(MentionableUsersSql.layer))
