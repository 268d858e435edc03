/**
 * Names too long for what stores them, found by the fuzz test (issue 15 item 2): a ref component
 * past 255 bytes cannot exist as a loose ref file, a fork name past 100 characters cannot be a
 * repository directory, and a quota name past 255 characters cannot be indexed. Each is a 4xx in
 * Forgejo's shape, never a 500, and nothing is created.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`

layer(TestServer.layer(), { timeout: "120 seconds" })("overlong names", (it) => {
  it.effect("answer 404 or 422, never 500", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("longnames")
      const forker = yield* createUser("forker")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "r", auto_init: true } })
      const long = "x".repeat(300)
      // 200 two-byte characters: within 255 characters, past 255 bytes.
      const wide = "é".repeat(200)

      for (const ref of [long, wide, `feature/${long}`]) {
        const editorconfig = yield* request("GET", `/api/v1/repos/longnames/r/editorconfig/a.txt?ref=${encodeURIComponent(ref)}`, { auth: owner.auth })
        assert.strictEqual(editorconfig.status, 404, editorconfig.text)
        const branch = yield* request("GET", `/api/v1/repos/longnames/r/branches/${encodeURIComponent(ref)}`, { auth: owner.auth })
        assert.strictEqual(branch.status, 404, branch.text)
      }

      for (const tag of [long, wide, "x".repeat(3000)]) {
        const release = yield* request("POST", "/api/v1/repos/longnames/r/releases", { auth: owner.auth, json: { tag_name: tag } })
        assert.deepStrictEqual([release.status, release.body], [422, { message: `release tag name is not valid [tag_name: ${tag}]`, url: errorUrl }])
      }
      assert.deepStrictEqual((yield* request("GET", "/api/v1/repos/longnames/r/releases", { auth: owner.auth })).body, [])

      const branch = yield* request("POST", "/api/v1/repos/longnames/r/branches", { auth: owner.auth, json: { new_branch_name: wide } })
      assert.deepStrictEqual([branch.status, branch.body], [422, { message: "[BranchName]: GitRefName", url: errorUrl }])

      const fork = yield* request("POST", "/api/v1/repos/longnames/r/forks", { auth: forker.auth, json: { name: long } })
      assert.deepStrictEqual([fork.status, fork.body], [422, { message: "[Name]: MaxSize", url: errorUrl }])
      assert.deepStrictEqual((yield* request("GET", "/api/v1/repos/longnames/r/forks")).body, [])

      const group = yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: long } })
      assert.deepStrictEqual([group.status, group.body], [422, { message: "[Name]: MaxSize", url: errorUrl }])
      const rule = yield* request("POST", "/api/v1/admin/quota/rules", { auth: admin, json: { name: long, limit: 1, subjects: ["size:all"] } })
      assert.deepStrictEqual([rule.status, rule.body], [422, { message: "[Name]: MaxSize", url: errorUrl }])
      const ruleInGroup = yield* request("POST", "/api/v1/admin/quota/groups", {
        auth: admin,
        json: { name: "g", rules: [{ name: long, limit: 1, subjects: ["size:all"] }] }
      })
      assert.strictEqual(ruleInGroup.status, 422, ruleInGroup.text)
      assert.deepStrictEqual((yield* request("GET", "/api/v1/admin/quota/groups", { auth: admin })).body, [])
    }))
})
