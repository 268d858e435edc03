/** One structured line per request: method, path, status, duration, caller address. */
import { Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"

export const accessLog = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = performance.now()
    const exit = yield* Effect.exit(app)
    const status = exit._tag === "Success" ? exit.value.status : 500
    yield* Effect.logInfo("request").pipe(Effect.annotateLogs({
      method: request.method,
      path: request.url,
      status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      remote: request.remoteAddress._tag === "Some" ? request.remoteAddress.value : ""
    }))
    return yield* exit
  })
