/** Unknown routes answer Forgejo's JSON 404 instead of an empty body. */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { NOT_FOUND_MESSAGE } from "./ApiErrors.ts"

export const layer = (errorUrl: string): Layer.Layer<never, never, HttpRouter.HttpRouter> =>
  HttpRouter.add("*", "/*", () =>
    Effect.succeed(HttpServerResponse.jsonUnsafe({ message: NOT_FOUND_MESSAGE, url: errorUrl, errors: [] }, { status: 404 })))
