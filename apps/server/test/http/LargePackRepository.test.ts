import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { seedRepository } from "./ArchiveFixtures.ts"
import { at, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

// A pack cache budget of 0: every repository is read as one whose packs are past the budget (git cat-file).
layer(TestServer.layer({ gitPackCacheMaxSize: 0 }), { timeout: "120 seconds" })("a repository read without the pack cache", (it) => {
  it.effect("serves its branches, commits and statuses", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      const { main, feature } = yield* seedRepository(ada.auth, "ada", "content")
      const branches = yield* request("GET", "/api/v1/repos/ada/content/branches", { auth: ada.auth })
      assert.strictEqual(branches.status, 200)
      assert.deepStrictEqual(
        (branches.body as ReadonlyArray<unknown>).map((branch) => [at(branch, "name"), at(branch, "commit", "id")]).sort(),
        [["feature/one", feature], ["main", main]]
      )
      assert.strictEqual(at((yield* request("GET", "/api/v1/repos/ada/content/branches/main", { auth: ada.auth })).body, "commit", "message"), "first\n")
      const created = yield* request("POST", "/api/v1/repos/ada/content/statuses/main", { auth: ada.auth, json: { state: "success", context: "ci" } })
      assert.strictEqual(created.status, 201, created.text)
      const combined = yield* request("GET", "/api/v1/repos/ada/content/commits/v1.0/status", { auth: ada.auth })
      assert.deepStrictEqual([combined.status, at(combined.body, "state"), at(combined.body, "sha")], [200, "success", main])
      const short = yield* request("GET", `/api/v1/repos/ada/content/commits/${main.slice(0, 8)}/status`, { auth: ada.auth })
      assert.strictEqual(at(short.body, "sha"), main)
    }))
})
