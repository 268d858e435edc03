/**
 * A renamed repository's old name answers 301 to the same path under its current name, for the
 * API, the web download route and git over HTTP (api-facts §0.1), only to callers who may see the
 * repository; a repository taking the old name, or the repository's deletion, ends the redirect.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { at, baseUrl, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { cloneUrl, makeGitClient } from "./GitClient.ts"

const notFound = { message: "The target couldn't be found.", url: `${ROOT_URL}api/swagger`, errors: [] }

const rename = (auth: TestServer.Auth, owner: string, from: string, to: string) =>
  Effect.gen(function*() {
    const renamed = yield* request("PATCH", `/api/v1/repos/${owner}/${from}`, { auth, json: { name: to } })
    assert.strictEqual(renamed.status, 200, renamed.text)
  })

const create = (auth: TestServer.Auth, name: string, extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const created = yield* request("POST", "/api/v1/user/repos", { auth, json: { name, auto_init: true, ...extra } })
    assert.strictEqual(created.status, 201, created.text)
    return Number(at(created.body, "id"))
  })

/** The status and Location of a request, redirects not followed. */
const redirectOf = (path: string, auth?: TestServer.Auth) =>
  Effect.map(request("GET", path, { auth }), (response) => [response.status, response.headers.get("location")] as const)

layer(TestServer.layer(), { timeout: "180 seconds" })("renamed repositories", (it) => {
  it.effect("answer 301 to the same path under the new name, query kept, until nothing leads there", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      const id = yield* create(ada.auth, "Old")
      yield* rename(ada.auth, "ada", "Old", "New")

      assert.deepStrictEqual(yield* redirectOf("/api/v1/repos/ada/old?foo=bar&x=1"), [301, "/api/v1/repos/ada/New?foo=bar&x=1"])
      // Names are matched in any case; the Location spells the current ones.
      assert.deepStrictEqual(yield* redirectOf("/api/v1/repos/ADA/OLD/branches/main"), [301, "/api/v1/repos/ada/New/branches/main"])
      assert.deepStrictEqual(yield* redirectOf("/api/v1/repos/ada/Old/archive/main.zip"), [301, "/api/v1/repos/ada/New/archive/main.zip"])
      assert.deepStrictEqual(yield* redirectOf("/ada/old/releases/download/v1/notes.txt"), [301, "/ada/New/releases/download/v1/notes.txt"])
      const moved = yield* request("DELETE", "/api/v1/repos/ada/Old", { auth: ada.auth })
      assert.deepStrictEqual([moved.status, moved.headers.get("location"), moved.text], [301, "/api/v1/repos/ada/New", ""])
      // Following it reaches the repository, which stays.
      const followed = yield* request("GET", "/api/v1/repos/ada/New?foo=bar&x=1")
      assert.deepStrictEqual([followed.status, at(followed.body, "id")], [200, id])

      // A name that never existed, and an unknown owner, are 404 as before.
      const never = yield* request("GET", "/api/v1/repos/ada/never")
      assert.deepStrictEqual([never.status, never.body], [404, notFound])
      assert.strictEqual((yield* request("GET", "/api/v1/repos/nobody/old")).status, 404)

      // Renamed again: both old names lead to the current one; renamed back, the first is live again.
      yield* rename(ada.auth, "ada", "New", "Newer")
      assert.deepStrictEqual(yield* redirectOf("/api/v1/repos/ada/old"), [301, "/api/v1/repos/ada/Newer"])
      assert.deepStrictEqual(yield* redirectOf("/api/v1/repos/ada/new"), [301, "/api/v1/repos/ada/Newer"])
      yield* rename(ada.auth, "ada", "Newer", "old")
      const back = yield* request("GET", "/api/v1/repos/ada/old")
      assert.deepStrictEqual([back.status, at(back.body, "id")], [200, id])
      assert.deepStrictEqual(yield* redirectOf("/api/v1/repos/ada/newer"), [301, "/api/v1/repos/ada/old"])

      // Deleting the repository ends every redirect to it.
      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/ada/old", { auth: ada.auth })).status, 204)
      for (const name of ["old", "new", "newer"]) {
        const gone = yield* request("GET", `/api/v1/repos/ada/${name}`)
        assert.deepStrictEqual([gone.status, gone.body], [404, notFound], name)
      }
    }))

  it.effect("give way to a repository created with the old name, which takes it for good", () =>
    Effect.gen(function*() {
      const bea = yield* createUser("bea")
      const first = yield* create(bea.auth, "name")
      yield* rename(bea.auth, "bea", "name", "renamed")
      const second = yield* create(bea.auth, "name")
      const taken = yield* request("GET", "/api/v1/repos/bea/name")
      assert.deepStrictEqual([taken.status, at(taken.body, "id")], [200, second])
      // Once the newcomer is deleted the name leads nowhere: the redirect went when it was taken.
      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/bea/name", { auth: bea.auth })).status, 204)
      assert.strictEqual((yield* request("GET", "/api/v1/repos/bea/name")).status, 404)
      const renamed = yield* request("GET", "/api/v1/repos/bea/renamed")
      assert.deepStrictEqual([renamed.status, at(renamed.body, "id")], [200, first])
    }))

  it.effect("of a private repository stay hidden from those who may not see it", () =>
    Effect.gen(function*() {
      const cid = yield* createUser("cid")
      const friend = yield* createUser("friend")
      const stranger = yield* createUser("stranger")
      yield* create(cid.auth, "secret", { private: true })
      const added = yield* request("PUT", "/api/v1/repos/cid/secret/collaborators/friend", { auth: cid.auth, json: { permission: "read" } })
      assert.strictEqual(added.status, 204, added.text)
      yield* rename(cid.auth, "cid", "secret", "hidden")

      for (const auth of [stranger.auth, undefined]) {
        const hidden = yield* request("GET", "/api/v1/repos/cid/secret/branches?limit=1", { auth })
        assert.deepStrictEqual([hidden.status, hidden.headers.get("location"), hidden.body], [404, null, notFound])
        const download = yield* request("GET", "/cid/secret/releases/download/v1/a.txt", { auth })
        assert.deepStrictEqual([download.status, download.headers.get("location")], [404, null])
      }
      const moved = "/api/v1/repos/cid/hidden/branches?limit=1"
      assert.deepStrictEqual(yield* redirectOf("/api/v1/repos/cid/secret/branches?limit=1", cid.auth), [301, moved])
      assert.deepStrictEqual(yield* redirectOf("/api/v1/repos/cid/secret/branches?limit=1", friend.auth), [301, moved])
    }))

  it.effect("are followed by git: clone and push through the old name, private ones only for those who may", () =>
    Effect.scoped(Effect.gen(function*() {
      const dee = yield* createUser("dee")
      const stranger = yield* createUser("outsider")
      yield* create(dee.auth, "tool")
      yield* create(dee.auth, "vault", { private: true })
      yield* rename(dee.auth, "dee", "tool", "toolkit")
      yield* rename(dee.auth, "dee", "vault", "safe")
      const client = yield* makeGitClient
      const base = yield* baseUrl

      const info = yield* Effect.promise(() =>
        fetch(`${base}/dee/tool.git/info/refs?service=git-upload-pack`, { redirect: "manual" }))
      assert.deepStrictEqual([info.status, info.headers.get("location")], [301, "/dee/toolkit.git/info/refs?service=git-upload-pack"])

      const cloned = yield* client.run(["clone", cloneUrl(base, "dee", "tool"), client.path("tool")])
      assert.strictEqual(cloned.code, 0, cloned.stderr)
      assert.include(cloned.stderr, "redirecting to")
      assert.include(yield* client.git(["log", "--format=%s"], { cwd: client.path("tool") }), "Initial commit")

      // A push follows the redirect of its first request too, with the owner's credentials.
      const owner = { username: "dee", password: dee.password }
      const work = client.path("vault")
      const ownClone = yield* client.run(["clone", cloneUrl(base, "dee", "vault", owner), work])
      assert.strictEqual(ownClone.code, 0, ownClone.stderr)
      yield* client.commit(work, { "note.txt": "kept\n" }, "through the old name")
      const pushed = yield* client.run(["push", cloneUrl(base, "dee", "vault", owner), "HEAD:main"], { cwd: work })
      assert.strictEqual(pushed.code, 0, pushed.stderr)
      const branch = yield* request("GET", "/api/v1/repos/dee/safe/branches/main", { auth: dee.auth })
      assert.strictEqual(at(branch.body, "commit", "message"), "through the old name\n")

      // Nobody else learns where the private repository went.
      const anonymous = yield* Effect.promise(() =>
        fetch(`${base}/dee/vault.git/info/refs?service=git-upload-pack`, { redirect: "manual" }))
      assert.deepStrictEqual([anonymous.status, anonymous.headers.get("location")], [401, null])
      const outsider = yield* client.run([
        "clone",
        cloneUrl(base, "dee", "vault", { username: "outsider", password: stranger.password }),
        client.path("outsider")
      ])
      assert.notStrictEqual(outsider.code, 0)
      assert.notInclude(outsider.stderr, "safe")
    })))
})
