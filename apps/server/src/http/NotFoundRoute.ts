/** Unknown routes answer Forgejo's JSON 404 instead of an empty body; git's smart HTTP paths go to `git`. */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { NOT_FOUND_MESSAGE } from "./ApiErrors.ts"
import type { GitFallback } from "./GitRoutes.ts"

export const layer = (errorUrl: string, git?: GitFallback): Layer.Layer<never, never, HttpRouter.HttpRouter> =>
  HttpRouter.add("*", "/*", (request) =>
    git?.(request) ??
      Effect.succeed(HttpServerResponse.jsonUnsafe({ message: NOT_FOUND_MESSAGE, url: errorUrl, errors: [] }, { status: 404 })))
