/** Commit statuses and the combined status over HTTP (api-facts §1.6, §4.8; behaviour cases ST-01, ST-02). */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { at, baseUrl, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { cloneUrl, makeGitClient } from "./GitClient.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const STATUS_KEYS = ["id", "status", "target_url", "description", "url", "context", "creator", "created_at", "updated_at"]
const COMBINED_KEYS = ["state", "sha", "total_count", "statuses", "repository", "commit_url", "url"]
const ZERO = { state: "", sha: "", total_count: 0, statuses: null, repository: null, commit_url: "", url: "" }

layer(TestServer.layer(), { timeout: "300 seconds" })("commit statuses", (it) => {
  it.effect("stores a status of each state against the full commit id, found by sha, short sha, branch and tag (ST-01, ST-02)", () =>
    Effect.scoped(Effect.gen(function*() {
      const alice = yield* createUser("alice")
      yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "repo1", auto_init: true } })
      const client = yield* makeGitClient
      const work = client.path("repo1")
      yield* client.git(["clone", "-q", cloneUrl(yield* baseUrl, "alice", "repo1", { username: "alice", password: alice.password }), work])
      yield* client.git(["tag", "v1.1"], { cwd: work })
      yield* client.git(["push", "-q", "origin", "v1.1"], { cwd: work })
      const sha = (yield* client.git(["rev-parse", "HEAD"], { cwd: work })).trim()
      const token = yield* createToken(alice.auth, "alice", "ci", ["write:repository"])

      for (const state of ["pending", "success", "error", "failure", "warning"]) {
        const context = `testci-${state}`
        const created = yield* request("POST", `/api/v1/repos/alice/repo1/statuses/${sha}`, {
          auth: { bearer: token },
          json: { state, target_url: "http://test.ci/", description: "", context }
        })
        assert.strictEqual(created.status, 201, created.text)
        assert.deepStrictEqual(Object.keys(created.body as object), STATUS_KEYS)
        assert.strictEqual(at(created.body, "status"), state)
        assert.strictEqual(at(created.body, "url"), `${ROOT_URL}api/v1/repos/alice/repo1/statuses/${sha}`)
        assert.strictEqual(at(created.body, "creator", "login"), "alice")
        assert.strictEqual(at(created.body, "creator", "email"), "alice@noreply.kiln.test")
        assert.strictEqual(at(created.body, "created_at"), at(created.body, "updated_at"))
        for (const ref of [sha, sha.slice(0, 10), "main", "v1.1"]) {
          const listed = yield* request("GET", `/api/v1/repos/alice/repo1/statuses/${encodeURIComponent(ref)}?state=${state}`)
          assert.strictEqual(listed.status, 200, listed.text)
          assert.lengthOf(listed.body as Array<unknown>, 1)
          assert.strictEqual(at(listed.body, 0, "context"), context)
          for (const path of ["statuses", "status"]) {
            const combined = yield* request("GET", `/api/v1/repos/alice/repo1/commits/${encodeURIComponent(ref)}/${path}`)
            assert.strictEqual(combined.status, 200, combined.text)
            assert.deepStrictEqual(Object.keys(combined.body as object), COMBINED_KEYS)
            assert.strictEqual(at(combined.body, "sha"), sha)
            const ours = (at(combined.body, "statuses") as Array<unknown>).find((item) => at(item, "context") === context)
            assert.deepStrictEqual(ours, at(listed.body, 0))
          }
        }
      }
      // Five contexts, one of them error: reported as failure.
      const combined = yield* request("GET", `/api/v1/repos/alice/repo1/commits/main/status`)
      assert.strictEqual(at(combined.body, "state"), "failure")
      assert.strictEqual(at(combined.body, "total_count"), 5)
      assert.strictEqual(combined.headers.get("x-total-count"), "5")
      assert.strictEqual(at(combined.body, "repository", "full_name"), "alice/repo1")
      assert.strictEqual(at(combined.body, "commit_url"), "")
    })))

  it.effect("combines the latest status of each context, worst state first, paged over contexts", () =>
    Effect.gen(function*() {
      const bob = yield* createUser("bob")
      const made = yield* request("POST", "/api/v1/user/repos", { auth: bob.auth, json: { name: "ci", auto_init: true } })
      assert.strictEqual(made.status, 201, made.text)
      const post = (context: string, state: string, extra: Record<string, string> = {}) =>
        request("POST", "/api/v1/repos/bob/ci/statuses/main", { auth: bob.auth, json: { state, context, ...extra } })
      const state = Effect.map(request("GET", "/api/v1/repos/bob/ci/commits/main/statuses"), (response) => at(response.body, "state"))

      const none = yield* request("GET", "/api/v1/repos/bob/ci/commits/main/statuses")
      assert.deepStrictEqual(none.body, ZERO)
      assert.isNull(none.headers.get("x-total-count"))

      yield* post("build", "success")
      assert.strictEqual(yield* state, "success")
      yield* post("lint", "pending")
      assert.strictEqual(yield* state, "pending")
      yield* post("docs", "warning")
      assert.strictEqual(yield* state, "warning")
      yield* post("build", "failure")
      assert.strictEqual(yield* state, "failure")
      // Only the latest status of a context counts.
      yield* post("build", "success")
      yield* post("lint", "success")
      assert.strictEqual(yield* state, "warning")
      yield* post("docs", "success")
      assert.strictEqual(yield* state, "success")
      yield* post("deploy", "error")
      assert.strictEqual(yield* state, "failure")
      yield* post("deploy", "bogus")
      assert.strictEqual(yield* state, "success")

      const whole = yield* request("GET", "/api/v1/repos/bob/ci/commits/main/statuses")
      const latest = (whole.body === undefined ? [] : at(whole.body, "statuses") as Array<unknown>).map((s) => [at(s, "context"), at(s, "status"), at(s, "id")])
      assert.deepStrictEqual(latest, [["build", "success", 5], ["lint", "success", 6], ["docs", "success", 7], ["deploy", "bogus", 9]])
      const firstPage = yield* request("GET", "/api/v1/repos/bob/ci/commits/main/statuses?limit=2")
      assert.deepStrictEqual((at(firstPage.body, "statuses") as Array<unknown>).map((s) => at(s, "context")), ["docs", "deploy"])
      assert.strictEqual(at(firstPage.body, "total_count"), 2)
      assert.strictEqual(firstPage.headers.get("x-total-count"), "4")
      const pastEnd = yield* request("GET", "/api/v1/repos/bob/ci/commits/main/statuses?limit=2&page=5")
      assert.deepStrictEqual([pastEnd.status, pastEnd.text], [200, "null"])

      // Every status ever posted, newest first, with the filters and paging.
      const all = yield* request("GET", "/api/v1/repos/bob/ci/statuses/main?sort=highestindex&limit=3")
      assert.deepStrictEqual((all.body as Array<unknown>).map((s) => at(s, "id")), [1, 2, 3])
      assert.strictEqual(all.headers.get("x-total-count"), "9")
      assert.include(all.headers.get("link") ?? "", 'rel="next"')
      const failures = yield* request("GET", "/api/v1/repos/bob/ci/statuses/main?state=failure")
      assert.deepStrictEqual((failures.body as Array<unknown>).map((s) => at(s, "id")), [4])
      const ignored = yield* request("GET", "/api/v1/repos/bob/ci/statuses/main?state=nonsense")
      assert.strictEqual((ignored.body as Array<unknown>).length, 9)

      const trimmed = yield* post("  spaced  ", "success", { description: "  words  ", target_url: " http://x/ " })
      assert.deepStrictEqual([at(trimmed.body, "context"), at(trimmed.body, "description"), at(trimmed.body, "target_url")], [
        "spaced", "words", "http://x/"
      ])
    }))

  it.effect("answers unknown refs, empty repositories and callers without access as Forgejo", () =>
    Effect.gen(function*() {
      const carol = yield* createUser("carol")
      const reader = yield* createUser("rory")
      yield* request("POST", "/api/v1/user/repos", { auth: carol.auth, json: { name: "full", auto_init: true } })
      yield* request("POST", "/api/v1/user/repos", { auth: carol.auth, json: { name: "blank" } })
      yield* request("POST", "/api/v1/user/repos", { auth: carol.auth, json: { name: "hidden", private: true, auto_init: true } })
      yield* request("PUT", "/api/v1/repos/carol/full/collaborators/rory", { auth: carol.auth, json: { permission: "read" } })

      const unknown = yield* request("GET", "/api/v1/repos/carol/full/commits/no-such-ref/status")
      assert.deepStrictEqual([unknown.status, unknown.body], [200, ZERO])
      const unknownList = yield* request("GET", "/api/v1/repos/carol/full/statuses/no-such-ref")
      assert.deepStrictEqual([unknownList.status, unknownList.body], [200, []])
      const unresolvable = yield* request("POST", "/api/v1/repos/carol/full/statuses/no-such-ref", { auth: carol.auth, json: { state: "success" } })
      assert.strictEqual(unresolvable.status, 500)
      // Forgejo's 500 names the ref; Kiln's 500 bodies carry only a request id (review finding 16).
      assert.notInclude(String(at(unresolvable.body, "message")), "no-such-ref")

      assert.strictEqual((yield* request("GET", "/api/v1/repos/carol/blank/commits/main/status")).status, 500)
      assert.strictEqual((yield* request("POST", "/api/v1/repos/carol/blank/statuses/main", { auth: carol.auth, json: { state: "success" } })).status, 500)
      assert.deepStrictEqual((yield* request("GET", `/api/v1/repos/carol/blank/statuses/${"a".repeat(40)}`)).body, [])

      const anonymous = yield* request("POST", "/api/v1/repos/carol/full/statuses/main", { json: { state: "success" } })
      assert.strictEqual(anonymous.status, 401)
      const byReader = yield* request("POST", "/api/v1/repos/carol/full/statuses/main", { auth: reader.auth, json: { state: "success" } })
      assert.deepStrictEqual([byReader.status, byReader.body], [403, { message: "user should have a permission to write to a repo", url: errorUrl }])
      assert.strictEqual((yield* request("GET", "/api/v1/repos/carol/hidden/commits/main/status")).status, 404)
      assert.strictEqual((yield* request("GET", "/api/v1/repos/carol/hidden/statuses/main")).status, 404)
    }))
})
