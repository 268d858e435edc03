/** Issue 21 over HTTP: budgets per user and per address, GitHub's headers, 429, /rate_limit, proxies. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { admin, at, createToken, createUser, ROOT_URL, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const limits = (response: TestServer.TestResponse) => ({
  limit: response.headers.get("x-ratelimit-limit"),
  remaining: response.headers.get("x-ratelimit-remaining"),
  used: response.headers.get("x-ratelimit-used"),
  resource: response.headers.get("x-ratelimit-resource")
})

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const nextHour = () => (Math.floor(Date.now() / 3_600_000) + 1) * 3600

layer(TestServer.layer({
  rateLimitAnonymous: 5,
  rateLimitAuthenticated: 8,
  rateLimitSearch: 2,
  trustedProxies: ["127.0.0.1"]
}), { timeout: "300 seconds" })("rate limits", (it) => {
  it.effect("anonymous callers spend their address's budget, then get 429 with Retry-After", () =>
    Effect.gen(function*() {
      // Each client address (as the trusted proxy forwards it) has a budget of its own.
      const from = { "x-forwarded-for": "203.0.113.7" }
      for (let n = 1; n <= 5; n++) {
        const answer = yield* request("GET", "/api/v1/version", { headers: from })
        assert.strictEqual(answer.status, 200)
        assert.deepStrictEqual(limits(answer), { limit: "5", remaining: String(5 - n), used: String(n), resource: "core" })
        assert.strictEqual(answer.headers.get("x-ratelimit-reset"), String(nextHour()))
      }
      const refused = yield* request("GET", "/api/v1/version", { headers: from })
      assert.strictEqual(refused.status, 429)
      assert.deepStrictEqual(refused.body, { message: "API rate limit exceeded for address:203.0.113.7", url: `${ROOT_URL}api/swagger` })
      assert.strictEqual(refused.headers.get("content-type"), "application/json;charset=utf-8")
      assert.deepStrictEqual(limits(refused), { limit: "5", remaining: "0", used: "5", resource: "core" })
      const retryAfter = Number(refused.headers.get("retry-after"))
      assert.isTrue(retryAfter >= 1 && retryAfter <= 3600, String(retryAfter))
      // The refusal did not run the route: a write refused changes nothing.
      const write = yield* request("POST", "/api/v1/markdown", { headers: from, json: { text: "x" } })
      assert.strictEqual(write.status, 429)

      // Another address is untouched; the proxy's own (no X-Forwarded-For) too.
      const other = yield* request("GET", "/api/v1/version", { headers: { "x-forwarded-for": "203.0.113.8" } })
      assert.deepStrictEqual(limits(other), { limit: "5", remaining: "4", used: "1", resource: "core" })
      // A forged entry before the client's address does not help: the proxy appended the real one.
      const forged = yield* request("GET", "/api/v1/version", { headers: { "x-forwarded-for": "198.51.100.1, 203.0.113.7" } })
      assert.strictEqual(forged.status, 429)

      // A remembered answer told to another client carries that client's budget, not the first one's.
      const tagged = yield* request("GET", "/api/v1/version", { headers: { "x-forwarded-for": "203.0.113.9" } })
      const etag = tagged.headers.get("etag") ?? ""
      const elsewhere = yield* request("GET", "/api/v1/version", {
        headers: { "x-forwarded-for": "203.0.113.10", "if-none-match": etag }
      })
      assert.strictEqual(elsewhere.status, 304)
      assert.deepStrictEqual(limits(elsewhere), { limit: "5", remaining: "5", used: "0", resource: "core" })
    }))

  it.effect("signed-in users spend their own budget; a 304 and /rate_limit spend nothing; searches have theirs", () =>
    Effect.gen(function*() {
      const alice = yield* createUser("alice")
      const token = yield* createToken(alice.auth, "alice", "ci", ["all"])
      const auth = { token }
      // Two requests spent above (user creation is the admin's, token creation is alice's).
      const first = yield* request("GET", "/api/v1/users/alice", { auth })
      assert.strictEqual(first.status, 200)
      const spent = Number(first.headers.get("x-ratelimit-used"))
      assert.strictEqual(first.headers.get("x-ratelimit-limit"), "8")
      const etag = first.headers.get("etag") ?? ""
      for (let n = 0; n < 3; n++) {
        const notModified = yield* request("GET", "/api/v1/users/alice", { auth, headers: { "if-none-match": etag } })
        assert.strictEqual(notModified.status, 304)
        assert.strictEqual(notModified.headers.get("x-ratelimit-used"), String(spent))
      }
      const overview = yield* request("GET", "/api/v1/rate_limit", { auth })
      assert.strictEqual(overview.status, 200, overview.text)
      const reset = nextHour()
      assert.deepStrictEqual(overview.body, {
        resources: {
          core: { limit: 8, used: spent, remaining: 8 - spent, reset },
          search: { limit: 2, used: 0, remaining: 2, reset }
        },
        rate: { limit: 8, used: spent, remaining: 8 - spent, reset }
      })
      assert.strictEqual(overview.headers.get("x-ratelimit-used"), String(spent))

      // Searches spend the search budget only.
      for (let n = 1; n <= 2; n++) {
        const search = yield* request("GET", "/api/v1/repos/search?q=x", { auth })
        assert.strictEqual(search.status, 200)
        assert.deepStrictEqual(limits(search), { limit: "2", remaining: String(2 - n), used: String(n), resource: "search" })
      }
      assert.strictEqual((yield* request("GET", "/api/v1/users/search?q=a", { auth })).status, 429)
      const core = yield* request("GET", "/api/v1/version", { auth })
      assert.strictEqual(core.status, 200)
      assert.strictEqual(core.headers.get("x-ratelimit-used"), String(spent + 1))

      // The overview's tag is not remembered as current: the budget moved with the /version above.
      const stale = yield* request("GET", "/api/v1/rate_limit", { auth, headers: { "if-none-match": overview.headers.get("etag") ?? "" } })
      assert.strictEqual(stale.status, 200)
      assert.strictEqual(at(stale.body, "rate", "used"), spent + 1)

      // Site administrators are exempt by default: no budget, no headers, and /rate_limit says so.
      const asAdmin = yield* request("GET", "/api/v1/version", { auth: admin })
      assert.isNull(asAdmin.headers.get("x-ratelimit-limit"))
      const adminOverview = yield* request("GET", "/api/v1/rate_limit", { auth: admin })
      assert.strictEqual(adminOverview.status, 404)
      assert.strictEqual(at(adminOverview.body, "message"), "Rate limiting is not enabled.")
    }))

  it.effect("spends a request at admission: requests at once cannot all pass a budget with one left", () =>
    Effect.gen(function*() {
      // Searches read the database, so ten at once are all in the route together.
      const from = { "x-forwarded-for": "203.0.113.40" }
      const answers = yield* Effect.all(
        Array.from({ length: 10 }, (_, n) => request("GET", `/api/v1/repos/search?q=x${n}`, { headers: from })),
        { concurrency: "unbounded" }
      )
      const statuses = answers.map((answer) => answer.status).sort()
      assert.deepStrictEqual(statuses, [200, 200, 429, 429, 429, 429, 429, 429, 429, 429])
      const overview = yield* request("GET", "/api/v1/rate_limit", { headers: from })
      assert.strictEqual(at(overview.body, "resources", "search", "used"), 2)
    }))

  it.effect("anonymous downloads, package files and git spend the address's budget too", () =>
    Effect.gen(function*() {
      const from = { "x-forwarded-for": "203.0.113.50" }
      const paths = [
        "/attachments/00000000-0000-0000-0000-000000000000",
        "/api/packages/root/generic/tool/1.0.0/tool.bin",
        "/root/nothing.git/info/refs?service=git-upload-pack",
        "/attachments/00000000-0000-0000-0000-000000000001",
        "/api/packages/root/generic/tool/1.0.0/other.bin"
      ]
      for (const [n, path] of paths.entries()) {
        const answer = yield* request("GET", path, { headers: from })
        assert.oneOf(answer.status, [401, 404], `${path}: ${answer.text}`)
        if (!path.includes(".git/")) assert.strictEqual(answer.headers.get("x-ratelimit-used"), String(n + 1), path)
      }
      for (const path of [...paths, "/api/v1/version"]) {
        const refused = yield* request("GET", path, { headers: from })
        assert.strictEqual(refused.status, 429, `${path}: ${refused.text}`)
        assert.include(refused.text, "API rate limit exceeded for address:203.0.113.50")
        assert.isAtLeast(Number(refused.headers.get("retry-after")), 1, path)
      }
      // A git request with credentials is the sign-in's to limit, not the budget's.
      assert.strictEqual((yield* request("GET", paths[2] ?? "", { headers: from, auth: admin })).status, 404)
    }))

  it.effect("counts are shared through the database: another process's count is seen, this one's is added", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const bob = yield* createUser("bob")
      const token = yield* createToken(bob.auth, "bob", "ci", ["all"])
      const auth = { token }
      const me = yield* request("GET", "/api/v1/user", { auth })
      const id = Number(at(me.body, "id"))
      const used = Number(me.headers.get("x-ratelimit-used"))
      // The counts reach the table within a second.
      yield* sleep(1_500)
      const rows = yield* sql<{ used: string | number }>`SELECT used FROM rate_limit_usage WHERE subject = ${`user:${id}`} AND resource = 'core'`
      assert.strictEqual(Number(rows[0]?.used), used)
      // Another process adds its count; the next flush brings the total back.
      yield* sql`UPDATE rate_limit_usage SET used = used + 3 WHERE subject = ${`user:${id}`} AND resource = 'core'`
      yield* request("GET", "/api/v1/version", { auth })
      yield* sleep(1_500)
      const after = yield* request("GET", "/api/v1/version", { auth })
      assert.strictEqual(after.headers.get("x-ratelimit-used"), String(used + 3 + 2))
    }))
})

layer(TestServer.layer({ rateLimitAnonymous: 2 }), { timeout: "300 seconds" })("rate limits without a trusted proxy", (it) => {
  it.effect("X-Forwarded-For from an untrusted peer is ignored: the socket's address pays", () =>
    Effect.gen(function*() {
      const a = yield* request("GET", "/api/v1/version", { headers: { "x-forwarded-for": "203.0.113.1" } })
      const b = yield* request("GET", "/api/v1/version", { headers: { "x-forwarded-for": "203.0.113.2" } })
      assert.deepStrictEqual([a.status, b.status], [200, 200])
      assert.strictEqual(b.headers.get("x-ratelimit-used"), "2")
      const c = yield* request("GET", "/api/v1/version", { headers: { "x-forwarded-for": "203.0.113.3" } })
      assert.strictEqual(c.status, 429)
      assert.strictEqual(at(c.body, "message"), "API rate limit exceeded for address:127.0.0.1")
      // Signed-in callers have no budget by default (KILN_RATE_LIMIT_AUTHENTICATED=0): no headers.
      const signedIn = yield* request("GET", "/api/v1/version", { auth: admin })
      assert.strictEqual(signedIn.status, 200)
      assert.isNull(signedIn.headers.get("x-ratelimit-limit"))
    }))
})
