/**
 * Which requests move the data version that remembered conditional answers are checked against
 * (ConditionalResponses.ts): writes and git pushes do, at once; the health check and git fetches
 * change nothing and leave every remembered answer standing (a load balancer polling the health
 * check, or a CI fleet fetching, made every remembered answer be read again).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { conditionalResponses } from "../../src/http/conditional/ConditionalResponses.ts"
import { ValidatorCache } from "../../src/http/conditional/ValidatorCache.ts"
import { changesNothing } from "../../src/http/HttpApp.ts"
import { isSmartHttpPath } from "../../src/http/GitRoutes.ts"
import { isHealthRequest } from "../../src/health/HealthRoute.ts"
import { pathnameOf } from "../../src/http/RequestTarget.ts"

describe("the data version of remembered answers", () => {
  it.effect("moves for writes, pushes and downloads, not for the health check, a git fetch or a push's advertisement", () =>
    Effect.gen(function*() {
      let version = 0
      const middleware = conditionalResponses({ version: () => version, accessVersion: () => version, changed: () => version++ }, {
        exempt: (url) => isSmartHttpPath(pathnameOf(url)) || isHealthRequest(url),
        changesNothing,
        remembers: () => true,
        cache: new ValidatorCache({ maxBytes: 1024 * 1024 })
      })
      const moves = (method: string, url: string, answer = HttpServerResponse.text("ok")) =>
        Effect.gen(function*() {
          const before = version
          yield* Effect.provideService(
            middleware(Effect.succeed(answer)),
            HttpServerRequest.HttpServerRequest,
            HttpServerRequest.fromWeb(new Request(`http://kiln.test${url}`, { method }))
          )
          return version !== before
        })

      assert.isFalse(yield* moves("GET", "/api/healthz"), "health check")
      assert.isFalse(yield* moves("GET", "/alice/demo.git/info/refs?service=git-upload-pack"), "fetch advertisement")
      assert.isFalse(yield* moves("POST", "/alice/demo.git/git-upload-pack"), "fetch negotiation")
      assert.isFalse(yield* moves("GET", "/api/v1/version", HttpServerResponse.jsonUnsafe({ version: "1" })), "JSON read")
      // A push's first request lists the refs; only the push itself writes.
      assert.isFalse(yield* moves("GET", "/alice/demo.git/info/refs?service=git-receive-pack"), "push advertisement")

      assert.isTrue(yield* moves("POST", "/alice/demo.git/git-receive-pack"), "push")
      assert.isTrue(yield* moves("PATCH", "/api/v1/repos/alice/demo"), "API write")
      assert.isTrue(yield* moves("GET", "/api/v1/repos/alice/demo/releases/assets/1"), "a download, which may be counted")
    }))
})
