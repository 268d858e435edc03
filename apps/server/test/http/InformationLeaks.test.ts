/**
 * Review finding 16, the leaks that are not parity: `X-Total-Count` of an owner's repositories
 * counts only what the viewer may see (and pages are full); a 500 carries no git error text, path
 * or SQL, only a request id; the token routes do not tell a hidden account from no account.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { bareRepositoryPath } from "./ArchiveFixtures.ts"
import { createOrg, names } from "../support/OrgFixtures.ts"
import { at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`

layer(TestServer.layer(), { timeout: "180 seconds" })("information leaks", (it) => {
  it.effect("counts only the repositories the viewer may see, on full pages", () =>
    Effect.gen(function*() {
      const holder = yield* createUser("holder")
      const friend = yield* createUser("friend")
      const stranger = yield* createUser("stranger")
      for (const name of ["a-private", "b-private", "c-private"]) {
        yield* request("POST", "/api/v1/user/repos", { auth: holder.auth, json: { name, private: true } })
      }
      yield* request("POST", "/api/v1/user/repos", { auth: holder.auth, json: { name: "d-public" } })
      yield* request("PUT", "/api/v1/repos/holder/b-private/collaborators/friend", { auth: holder.auth, json: { permission: "read" } })
      yield* createOrg(holder.auth, "holding")
      yield* request("POST", "/api/v1/orgs/holding/repos", { auth: holder.auth, json: { name: "x-private", private: true } })
      yield* request("POST", "/api/v1/orgs/holding/repos", { auth: holder.auth, json: { name: "y-public" } })

      const listed = (path: string, auth?: TestServer.Auth) =>
        Effect.map(request("GET", path, { auth }), (response) => [response.headers.get("x-total-count"), names(response.body)])
      assert.deepStrictEqual(yield* listed("/api/v1/users/holder/repos"), ["1", ["d-public"]])
      assert.deepStrictEqual(yield* listed("/api/v1/users/holder/repos", stranger.auth), ["1", ["d-public"]])
      assert.deepStrictEqual(yield* listed("/api/v1/users/holder/repos", friend.auth), ["2", ["b-private", "d-public"]])
      assert.deepStrictEqual(yield* listed("/api/v1/users/holder/repos", holder.auth), ["4", ["a-private", "b-private", "c-private", "d-public"]])
      // A page is filled with visible repositories, not cut short by hidden ones.
      assert.deepStrictEqual(yield* listed("/api/v1/users/holder/repos?limit=1&page=1", friend.auth), ["2", ["b-private"]])
      assert.deepStrictEqual(yield* listed("/api/v1/users/holder/repos?limit=1&page=2", friend.auth), ["2", ["d-public"]])
      assert.deepStrictEqual(yield* listed("/api/v1/orgs/holding/repos", stranger.auth), ["1", ["y-public"]])
      assert.deepStrictEqual(yield* listed("/api/v1/orgs/holding/repos"), ["1", ["y-public"]])
      assert.deepStrictEqual(yield* listed("/api/v1/orgs/holding/repos", holder.auth), ["2", ["x-private", "y-public"]])
    }))

  it.effect("answers a 500 with a request id and nothing of git's error, paths or SQL", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("broken")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "damaged", auto_init: true } })
      const path = yield* bareRepositoryPath("broken", "damaged")
      // The objects go, the refs stay. Reads answer as for a missing ref (404) or from the branch
      // table; a fork, which copies the repository with git, fails inside git.
      rmSync(join(path, "objects"), { recursive: true, force: true })
      const config = yield* KilnConfig
      const failures = []
      const attempts = [
        request("GET", "/api/v1/repos/broken/damaged/branches/main", { auth: owner.auth }),
        request("GET", "/api/v1/repos/broken/damaged/editorconfig/x.txt", { auth: owner.auth }),
        request("GET", "/api/v1/repos/broken/damaged/archive/main.zip", { auth: owner.auth }),
        request("POST", "/api/v1/repos/broken/damaged/forks", { auth: owner.auth, json: { name: "copy" } })
      ]
      for (const attempt of attempts) {
        const response = yield* attempt
        if (response.status >= 500) failures.push(response)
        assert.isFalse(response.text.includes(config.dataDir), response.text)
      }
      assert.isAbove(failures.length, 0, "the damaged repository fails an operation")
      for (const response of failures) {
        const id = response.headers.get("x-request-id") ?? ""
        assert.match(id, /^[0-9a-f]{16}$/)
        assert.deepStrictEqual(response.body, {
          message: `internal server error (request id ${id}); the server's log has the cause`,
          url: errorUrl,
          request_id: id
        })
      }
    }))

  it.effect("does not tell a hidden account from no account on the token routes", () =>
    Effect.gen(function*() {
      yield* createUser("recluse", { visibility: "private" })
      const snoop = yield* createUser("snoop")
      for (const method of ["GET", "POST"] as const) {
        const json = method === "POST" ? { json: { name: "t" } } : {}
        const hidden = yield* request(method, "/api/v1/users/recluse/tokens", { auth: snoop.auth, ...json })
        const missing = yield* request(method, "/api/v1/users/nobody-here/tokens", { auth: snoop.auth, ...json })
        assert.strictEqual(hidden.status, 404, hidden.text)
        assert.strictEqual(missing.status, 404, missing.text)
        assert.strictEqual(at(hidden.body, "message"), "user does not exist [uid: 0, name: recluse]")
        assert.strictEqual(at(missing.body, "message"), "user does not exist [uid: 0, name: nobody-here]")
      }
      const hiddenDelete = yield* request("DELETE", "/api/v1/users/recluse/tokens/1", { auth: snoop.auth })
      const missingDelete = yield* request("DELETE", "/api/v1/users/nobody-here/tokens/1", { auth: snoop.auth })
      assert.deepStrictEqual([hiddenDelete.status, missingDelete.status], [404, 404])
    }))
})
