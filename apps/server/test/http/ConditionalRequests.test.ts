/** Issue 21 over HTTP: entity tags and 304s, HEAD, Last-Modified, per route family. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { admin, at, createToken, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const etagOf = (response: TestServer.TestResponse): string => {
  const etag = response.headers.get("etag")
  assert.isNotNull(etag, `no ETag (${response.status})`)
  assert.match(etag ?? "", /^"[A-Za-z0-9_-]{27}"$/)
  return etag ?? ""
}

layer(TestServer.layer(), { timeout: "300 seconds" })("conditional requests", (it) => {
  it.effect("tags every JSON GET, answers 304 to a matching tag and a new tag once the body changes", () =>
    Effect.gen(function*() {
      const alice = yield* createUser("alice")
      const made = yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "repo1", auto_init: true } })
      assert.strictEqual(made.status, 201, made.text)
      const token = yield* createToken(alice.auth, "alice", "ci", ["all"])
      const auth = { token }

      // One route per family: repository, branches, combined status, users, releases, version, lists.
      const paths = [
        "/api/v1/repos/alice/repo1",
        "/api/v1/repos/alice/repo1/branches",
        "/api/v1/repos/alice/repo1/branches/main",
        "/api/v1/repos/alice/repo1/commits/main/status",
        "/api/v1/users/alice",
        "/api/v1/user",
        "/api/v1/repos/alice/repo1/releases",
        "/api/v1/version",
        "/api/v1/repos/search?q=repo"
      ]
      for (const path of paths) {
        const first = yield* request("GET", path, { auth })
        assert.strictEqual(first.status, 200, `${path}: ${first.text}`)
        const etag = etagOf(first)
        // Twice: the first may run the route, the second is answered from the remembered tag.
        for (let round = 0; round < 2; round++) {
          const again = yield* request("GET", path, { auth, headers: { "if-none-match": etag } })
          assert.strictEqual(again.status, 304, `${path} round ${round}`)
          assert.strictEqual(again.text, "")
          assert.strictEqual(again.headers.get("etag"), etag)
        }
        const other = yield* request("GET", path, { auth, headers: { "if-none-match": "\"something-else\"" } })
        assert.strictEqual(other.status, 200, `${path} other`)
        assert.strictEqual(other.text, first.text)
        const head = yield* request("HEAD", path, { auth })
        assert.strictEqual(head.status, 200, `${path} head`)
        assert.strictEqual(head.text, "")
        assert.strictEqual(head.headers.get("etag"), etag, path)
        const headConditional = yield* request("HEAD", path, { auth, headers: { "if-none-match": `W/${etag}, "x"` } })
        assert.strictEqual(headConditional.status, 304, path)
      }

      // A change to the repository changes its tag at once.
      const repoPath = "/api/v1/repos/alice/repo1"
      const before = etagOf(yield* request("GET", repoPath, { auth }))
      const edited = yield* request("PATCH", repoPath, { auth, json: { description: "changed" } })
      assert.strictEqual(edited.status, 200, edited.text)
      const after = yield* request("GET", repoPath, { auth, headers: { "if-none-match": before } })
      assert.strictEqual(after.status, 200)
      assert.strictEqual(at(after.body, "description"), "changed")
      assert.notStrictEqual(etagOf(after), before)

      // The caller's permissions are part of the answer: another caller, another tag.
      const anonymous = yield* request("GET", repoPath, { headers: { "if-none-match": etagOf(after) } })
      assert.strictEqual(anonymous.status, 200)
      assert.notStrictEqual(etagOf(anonymous), etagOf(after))

      // A change made behind the server's back (another process, a script) is seen too.
      const sql = yield* SqlClient.SqlClient
      const current = etagOf(yield* request("GET", repoPath, { auth }))
      assert.strictEqual((yield* request("GET", repoPath, { auth, headers: { "if-none-match": current } })).status, 304)
      yield* sql`UPDATE repositories SET description = 'behind the back' WHERE lower_name = 'repo1'`
      // The notification of that commit reaches the listener asynchronously (a server database).
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
      const seen = yield* request("GET", repoPath, { auth, headers: { "if-none-match": current } })
      if (process.env["KILN_TEST_DATABASE_URL"]) {
        assert.strictEqual(seen.status, 200)
        assert.strictEqual(at(seen.body, "description"), "behind the back")
      }

      // Errors carry no tag and are never 304.
      const missing = yield* request("GET", "/api/v1/repos/alice/nothing", { auth, headers: { "if-none-match": "*" } })
      assert.strictEqual(missing.status, 404)
      assert.isNull(missing.headers.get("etag"))
    }))

  it.effect("Last-Modified and If-Modified-Since on repositories, users and releases", () =>
    Effect.gen(function*() {
      const bob = yield* createUser("bob")
      const made = yield* request("POST", "/api/v1/user/repos", { auth: bob.auth, json: { name: "dated", auto_init: true } })
      assert.strictEqual(made.status, 201, made.text)
      const release = yield* request("POST", "/api/v1/repos/bob/dated/releases", {
        auth: bob.auth,
        json: { tag_name: "v1", name: "one", target_commitish: "main" }
      })
      assert.strictEqual(release.status, 201, release.text)
      const paths = [
        ["/api/v1/repos/bob/dated", "updated_at"],
        ["/api/v1/users/bob", "created"],
        [`/api/v1/repos/bob/dated/releases/${String(at(release.body, "id"))}`, "created_at"],
        ["/api/v1/repos/bob/dated/releases/tags/v1", "created_at"],
        ["/api/v1/user", "created"]
      ] as const
      for (const [path, field] of paths) {
        const first = yield* request("GET", path, { auth: bob.auth })
        assert.strictEqual(first.status, 200, `${path}: ${first.text}`)
        const lastModified = first.headers.get("last-modified") ?? ""
        const stated = Math.floor(Date.parse(String(at(first.body, field))) / 1000) * 1000
        // A user's is their last update, which the answer does not show: never before their creation.
        if (field === "created") assert.isAtLeast(Date.parse(lastModified), stated, path)
        else assert.strictEqual(Date.parse(lastModified), stated, path)
        const since = yield* request("GET", path, { auth: bob.auth, headers: { "if-modified-since": lastModified } })
        assert.strictEqual(since.status, 304, path)
        assert.strictEqual(since.headers.get("last-modified"), lastModified)
        const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString()
        const older = yield* request("GET", path, { auth: bob.auth, headers: { "if-modified-since": earlier } })
        assert.strictEqual(older.status, 200, path)
        // If-None-Match decides when both are sent.
        const both = yield* request("GET", path, {
          auth: bob.auth,
          headers: { "if-modified-since": lastModified, "if-none-match": "\"stale\"" }
        })
        assert.strictEqual(both.status, 200, path)
      }
    }))

  it.effect("the Swagger document declares the headers, the 304 and the 429", () =>
    Effect.gen(function*() {
      const served = yield* request("GET", "/swagger.v1.json")
      assert.strictEqual(served.status, 200)
      const repoGet = at(served.body, "paths", "/repos/{owner}/{repo}", "get", "responses")
      assert.deepStrictEqual(at(repoGet, "304"), { $ref: "#/responses/notModified" })
      assert.deepStrictEqual(at(repoGet, "429"), { $ref: "#/responses/tooManyRequests" })
      assert.deepStrictEqual(at(served.body, "paths", "/repos/{owner}/{repo}", "patch", "responses", "429"), {
        $ref: "#/responses/tooManyRequests"
      })
      assert.isUndefined(at(served.body, "paths", "/repos/{owner}/{repo}", "patch", "responses", "304"))
      const shared = at(served.body, "responses")
      assert.hasAllKeys(at(shared, "notModified", "headers") as object, [
        "ETag", "Last-Modified", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Reset",
        "X-RateLimit-Resource"
      ])
      assert.include(Object.keys(at(shared, "tooManyRequests", "headers") as object), "Retry-After")
      // A list answer (a shared `...List` response) declares the paging headers.
      const releases = at(served.body, "paths", "/repos/{owner}/{repo}/releases", "get", "responses", "200")
      const listName = String(at(releases, "$ref")).replace("#/responses/", "")
      assert.includeMembers(Object.keys(at(shared, listName, "headers") as object), ["X-Total-Count", "Link", "ETag"])
      // An inline one (branches may be null) declares them in place.
      const branches = at(served.body, "paths", "/repos/{owner}/{repo}/branches", "get", "responses", "200", "headers")
      assert.includeMembers(Object.keys(branches as object), ["X-Total-Count", "Link", "ETag"])
    }))

  it.effect("answers read from the disk are never answered from memory: a new unadopted directory shows", () =>
    Effect.gen(function*() {
      yield* createUser("dana")
      const config = yield* KilnConfig
      const first = yield* request("GET", "/api/v1/admin/unadopted", { auth: admin })
      assert.strictEqual(first.status, 200, first.text)
      const etag = etagOf(first)
      assert.strictEqual((yield* request("GET", "/api/v1/admin/unadopted", { auth: admin, headers: { "if-none-match": etag } })).status, 304)
      execFileSync("git", ["init", "--quiet", "--bare", join(config.dataDir, "repositories", "dana", "found.git")])
      const after = yield* request("GET", "/api/v1/admin/unadopted", { auth: admin, headers: { "if-none-match": etag } })
      assert.strictEqual(after.status, 200)
      assert.include(after.body as ReadonlyArray<string>, "dana/found")
    }))
})
