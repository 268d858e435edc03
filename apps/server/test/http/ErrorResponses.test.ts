/**
 * The router-wide error answers at the middleware's level: a failure becomes one 500 whose request
 * id finds the cause in the log.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Logger, References } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { forgejoErrorResponses } from "../../src/http/ErrorResponses.ts"

interface Logged {
  readonly message: unknown
  readonly annotations: Readonly<Record<string, unknown>>
  readonly cause: Cause.Cause<unknown>
}

const errorUrl = "http://kiln.test/api/swagger"

/** Runs `app` for GET /api/v1/version under the middleware, collecting what it logs. */
const answer = (app: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>) =>
  Effect.gen(function*() {
    const logged: Array<Logged> = []
    const collector = Logger.make((options) => {
      logged.push({
        message: options.message,
        annotations: options.fiber.getRef(References.CurrentLogAnnotations),
        cause: options.cause
      })
    })
    const request = HttpServerRequest.fromWeb(new Request("http://kiln.test/api/v1/version"))
    const response = yield* forgejoErrorResponses(errorUrl, () => false)(app).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request),
      Effect.provide(Logger.layer([collector]))
    )
    return { response, logged }
  })

describe("router-wide error answers", () => {
  it.effect("a defect answers one 500, logged once with its cause under the id the answer names", () =>
    Effect.gen(function*() {
      const { response, logged } = yield* answer(Effect.die(new Error("the disk is on fire")))
      assert.strictEqual(response.status, 500)
      const id = response.headers["x-request-id"]
      assert.match(id ?? "", /^[0-9a-f]{16}$/)
      assert.strictEqual(logged.length, 1, "one log line per failed request")
      const [line] = logged
      assert.strictEqual(line?.annotations["request_id"], id)
      assert.include(Cause.pretty(line?.cause ?? Cause.empty), "the disk is on fire")
    }))

  it.effect("a handler's own 500 is logged once under the id the answer names", () =>
    Effect.gen(function*() {
      const { response, logged } = yield* answer(Effect.succeed(HttpServerResponse.text("git said no", { status: 500 })))
      assert.strictEqual(response.status, 500)
      assert.strictEqual(logged.length, 1)
      assert.strictEqual(logged[0]?.annotations["request_id"], response.headers["x-request-id"])
      assert.strictEqual(logged[0]?.annotations["response"], "git said no")
    }))

  it.effect("a 4xx without a message becomes Forgejo's error; a 200 passes untouched", () =>
    Effect.gen(function*() {
      const missing = yield* answer(Effect.succeed(HttpServerResponse.empty({ status: 404 })))
      assert.strictEqual(missing.response.status, 404)
      assert.strictEqual(missing.logged.length, 0)
      const ok = HttpServerResponse.text("fine")
      const passed = yield* answer(Effect.succeed(ok))
      assert.strictEqual(passed.response, ok)
    }))
})
