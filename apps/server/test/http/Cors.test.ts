/** Issue 21, point 5: Forgejo's `[cors]` settings over HTTP, off by default. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, createUser, request } from "../support/TestServer.ts"
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

  // Finding 28's guard refuses cross-site Basic writes; an origin the operator lists is not foreign.
  it.effect("lets a listed origin write with Basic credentials, not another", () =>
    Effect.gen(function*() {
      const user = yield* createUser("cors-writer")
      const listed = yield* request("POST", "/api/v1/user/repos", {
        auth: user.auth,
        json: { name: "from-app" },
        headers: { origin: "https://ci.tools.example.com", "sec-fetch-site": "cross-site" }
      })
      assert.strictEqual(listed.status, 201, listed.text)
      const foreign = yield* request("POST", "/api/v1/user/repos", {
        auth: user.auth,
        json: { name: "from-evil" },
        headers: { origin: "https://evil.example.net", "sec-fetch-site": "cross-site" }
      })
      assert.strictEqual(foreign.status, 403, foreign.text)
    }))
})

// Review finding 27: `*` with credentials granted every origin the caller's private data.
layer(TestServer.layer({
  cors: {
    enabled: true,
    allowOrigins: ["*", "https://app.example.com"],
    methods: ["GET", "POST"],
    headers: ["Content-Type"],
    maxAge: 600,
    allowCredentials: true
  }
}), { timeout: "300 seconds" })("CORS with * among the origins", (it) => {
  it.effect("grants a literal * and never credentials, as go-chi/cors", () =>
    Effect.gen(function*() {
      for (const origin of ["https://evil.example", "https://app.example.com"]) {
        const granted = yield* preflight(origin, "POST", "content-type")
        assert.strictEqual(granted.status, 200)
        assert.strictEqual(granted.headers.get("access-control-allow-origin"), "*")
        assert.strictEqual(granted.headers.get("access-control-allow-methods"), "POST")
        assert.isNull(granted.headers.get("access-control-allow-credentials"))
        const actual = yield* request("GET", "/api/v1/user", { auth: admin, headers: { origin } })
        assert.strictEqual(actual.status, 200)
        assert.strictEqual(actual.headers.get("access-control-allow-origin"), "*")
        assert.isNull(actual.headers.get("access-control-allow-credentials"))
        assert.include(actual.headers.get("vary") ?? "", "Origin")
      }
      // `*` names no origin: a foreign page's Basic write is still refused.
      const write = yield* request("POST", "/api/v1/user/repos", {
        auth: admin,
        json: { name: "from-anywhere" },
        headers: { origin: "https://evil.example" }
      })
      assert.strictEqual(write.status, 403, write.text)
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
