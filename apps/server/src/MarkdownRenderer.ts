/** The markdown renderer (worker threads) configured from KILN_MARKDOWN_MAX_SIZE and the root URL. */
import { Effect, Layer } from "effect"
import { MarkdownLive } from "@kiln/markdown"
import * as MentionableUsersSql from "@kiln/postgres/stores/MentionableUsersSql"
import { KilnConfig } from "./config/KilnConfig.ts"

/** A render that takes longer is stopped and answered with 422. */
export const RENDER_TIME_LIMIT_MILLIS = 5_000

export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* KilnConfig
  return MarkdownLive({ maxSize: config.markdownMaxSize, timeoutMillis: RENDER_TIME_LIMIT_MILLIS, rootUrl: config.rootUrl })
})).pipe(Layer.provide(MentionableUsersSql.layer))
