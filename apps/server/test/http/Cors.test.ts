/** Issue 21, point 5: Forgejo's `[cors]` settings over HTTP, off by default. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const preflight = (origin: string, method: string, headers?: string) =>
  request("OPTIONS", "/api/v1/version", {
    headers: {
      origin,
      "access-control-request-method": method,
      ...(headers === undefined ? {} : { "access-control-request-headers": headers })
    }
  })

layer(TestServer.layer({
  cors: {
    enabled: true,
    allowOrigins: ["https://app.example.com", "https://*.tools.example.com"],
    methods: ["GET", "POST"],
    headers: ["Content-Type"],
    maxAge: 600,
    allowCredentials: true
  }
}), { timeout: "300 seconds" })("CORS enabled", (it) => {
  it.effect("grants allowed origins, methods and headers; refuses the rest", () =>
    Effect.gen(function*() {
      const granted = yield* preflight("https://app.example.com", "POST", "Authorization, content-type")
      assert.strictEqual(granted.status, 200)
      assert.strictEqual(granted.headers.get("access-control-allow-origin"), "https://app.example.com")
      assert.strictEqual(granted.headers.get("access-control-allow-methods"), "POST")
      assert.strictEqual(granted.headers.get("access-control-allow-headers"), "Authorization, content-type")
      assert.strictEqual(granted.headers.get("access-control-allow-credentials"), "true")
      assert.strictEqual(granted.headers.get("access-control-max-age"), "600")

      const wildcard = yield* preflight("https://ci.tools.example.com", "GET")
      assert.strictEqual(wildcard.headers.get("access-control-allow-origin"), "https://ci.tools.example.com")

      for (const refused of [
        yield* preflight("https://evil.example.net", "GET"),
        yield* preflight("https://app.example.com", "DELETE"),
        yield* preflight("https://app.example.com", "GET", "X-Custom")
      ]) {
        assert.strictEqual(refused.status, 200)
        assert.isNull(refused.headers.get("access-control-allow-origin"))
      }

      const actual = yield* request("GET", "/api/v1/version", { headers: { origin: "https://app.example.com" } })
      assert.strictEqual(actual.status, 200)
      assert.strictEqual(actual.headers.get("access-control-allow-origin"), "https://app.example.com")
      assert.include(actual.headers.get("vary") ?? "", "Origin")
      for (const name of ["ETag", "Link", "X-Total-Count", "X-RateLimit-Remaining"]) {
        assert.include(actual.headers.get("access-control-expose-headers") ?? "", name)
      }
      const foreign = yield* request("GET", "/api/v1/version", { headers: { origin: "https://evil.example.net" } })
      assert.strictEqual(foreign.status, 200)
      assert.isNull(foreign.headers.get("access-control-allow-origin"))
    }))
})

layer(TestServer.layer(), { timeout: "300 seconds" })("CORS off (the default)", (it) => {
  it.effect("no grant, and a preflight is no route", () =>
    Effect.gen(function*() {
      const answer = yield* request("GET", "/api/v1/version", { headers: { origin: "https://app.example.com" } })
      assert.isNull(answer.headers.get("access-control-allow-origin"))
      const asked = yield* preflight("https://app.example.com", "GET")
      assert.isNull(asked.headers.get("access-control-allow-origin"))
      assert.notStrictEqual(asked.status, 200)
    }))
})
