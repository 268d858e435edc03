import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ADMIN, admin, at, baseUrl, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`

layer(TestServer.layer(), { timeout: "120 seconds" })("admin users", (it) => {
  it.effect("creates a user from JSON and renders it in Forgejo's shape", () =>
    Effect.gen(function*() {
      const response = yield* request("POST", "/api/v1/admin/users", {
        auth: admin,
        json: { username: "Alice", email: "alice@example.com", password: "password1", full_name: "Alice A." }
      })
      assert.strictEqual(response.status, 201)
      assert.deepStrictEqual(Object.keys(response.body as object), [
        "id", "login", "login_name", "source_id", "full_name", "email", "avatar_url", "html_url", "language",
        "is_admin", "last_login", "created", "restricted", "active", "prohibit_login", "location", "pronouns",
        "website", "description", "visibility", "followers_count", "following_count", "starred_repos_count", "username"
      ])
      assert.strictEqual(at(response.body, "login"), "Alice")
      assert.strictEqual(at(response.body, "email"), "alice@example.com")
      assert.strictEqual(at(response.body, "html_url"), `${ROOT_URL}Alice`)
      assert.strictEqual(at(response.body, "visibility"), "public")
      assert.strictEqual(at(response.body, "active"), true)
      assert.match(String(at(response.body, "created")), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    }))

  it.effect("accepts form bodies (ADM-10) and must_change_password defaults to true", () =>
    Effect.gen(function*() {
      const response = yield* request("POST", "/api/v1/admin/users", {
        auth: admin,
        form: { email: "deleteme@domain.com", full_name: "delete me", login_name: "deleteme", password: "password", send_notify: "true", source_id: "0", username: "deleteme" }
      })
      assert.strictEqual(response.status, 201)
      const signIn = yield* request("GET", "/api/v1/user", { auth: TestServer.basic("deleteme", "password") })
      assert.strictEqual(signIn.status, 403)
      assert.deepStrictEqual(signIn.body, { message: `You must change your password. Change it at: ${ROOT_URL}user/change_password` })
      const deleted = yield* request("DELETE", "/api/v1/admin/users/deleteme", { auth: admin })
      assert.strictEqual(deleted.status, 204)
      assert.strictEqual(deleted.text, "")
      const again = yield* request("DELETE", "/api/v1/admin/users/deleteme", { auth: admin })
      assert.strictEqual(again.status, 404)
      assert.deepStrictEqual(again.body, { message: "user does not exist [uid: 0, name: deleteme]", url: errorUrl })
    }))

  it.effect("answers Forgejo's binding errors", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, number, string]> = [
        [{ email: "x@example.com", password: "password1" }, 422, "[Username]: Required"],
        [{ username: "bad name", email: "x@example.com", password: "password1" }, 422, "[Username]: invalid username"],
        [{ username: "a".repeat(41), email: "x@example.com", password: "password1" }, 422, "[Username]: MaxSize"],
        [{ username: "admin", email: "x@example.com", password: "password1" }, 422, "name is reserved [name: admin]"],
        [{ username: "thing.keys", email: "x@example.com", password: "password1" }, 422, "name pattern is not allowed [pattern: *.keys]"],
        [{ username: "invalidUser", email: "invalid_email@domain.com\r\n", password: "password1" }, 422, "[Email]: e-mail invalid [email: invalid_email@domain.com\r\n]"],
        [{ username: "shortpw", email: "s@example.com", password: "short" }, 400, "PasswordIsRequired"],
        [{ username: "badvis", email: "v@example.com", password: "password1", visibility: "secret" }, 422, "[Visibility]: In"],
        [{ username: "alice", email: "other@example.com", password: "password1" }, 422, "user already exists [name: alice]"],
        [{ username: "someone", email: "ALICE@example.com", password: "password1" }, 422, "e-mail already in use [email: ALICE@example.com]"]
      ]
      for (const [json, status, message] of cases) {
        const response = yield* request("POST", "/api/v1/admin/users", { auth: admin, json })
        assert.strictEqual(response.status, status, JSON.stringify(json))
        assert.deepStrictEqual(response.body, { message, url: errorUrl })
      }
      const malformed = yield* request("POST", "/api/v1/admin/users", { auth: admin, body: "{not json" })
      assert.strictEqual(malformed.status, 422)
      assert.match(String(at(malformed.body, "message")), /^\[\]: /)
    }))

  it.effect("refuses anonymous (401) and non-admin callers (403), before reading the body", () =>
    Effect.gen(function*() {
      const anonymous = yield* request("POST", "/api/v1/admin/users", { body: "{not json" })
      assert.strictEqual(anonymous.status, 401)
      assert.deepStrictEqual(anonymous.body, { message: "token is required", url: errorUrl })
      const bob = yield* createUser("bob")
      const forbidden = yield* request("GET", "/api/v1/admin/users", { auth: bob.auth })
      assert.strictEqual(forbidden.status, 403)
      assert.deepStrictEqual(forbidden.body, { message: "user should be the site admin", url: errorUrl })
      const wrongPassword = yield* request("GET", "/api/v1/admin/users", { auth: TestServer.basic("root", "wrong-password") })
      assert.strictEqual(wrongPassword.status, 401)
    }))

  it.effect("creates exactly one account when the same name is created concurrently", () =>
    Effect.gen(function*() {
      const attempts = yield* Effect.forEach(
        [1, 2, 3, 4, 5, 6],
        (n) =>
          request("POST", "/api/v1/admin/users", {
            auth: admin,
            json: { username: n % 2 === 0 ? "racer" : "RACER", email: `racer${n}@example.com`, password: "password1" }
          }),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(attempts.map((r) => r.status).sort(), [201, 422, 422, 422, 422, 422])
      const listed = yield* request("GET", "/api/v1/admin/users?limit=50", { auth: admin })
      assert.strictEqual((listed.body as Array<unknown>).filter((u) => String(at(u, "login")).toLowerCase() === "racer").length, 1)
    }))

  it.effect("edits users with Forgejo's pointer semantics (ADM-11, ADM-12)", () =>
    Effect.gen(function*() {
      yield* createUser("carol")
      const renamed = yield* request("PATCH", "/api/v1/admin/users/carol", { auth: admin, form: { full_name: "Full Name Carol" } })
      assert.strictEqual(renamed.status, 200)
      assert.strictEqual(at(renamed.body, "full_name"), "Full Name Carol")
      const emptyEmail = yield* request("PATCH", "/api/v1/admin/users/carol", { auth: admin, json: { email: "" } })
      assert.strictEqual(emptyEmail.status, 400)
      assert.deepStrictEqual(emptyEmail.body, { message: "e-mail invalid [email: ]", url: errorUrl })
      const restricted = yield* request("PATCH", "/api/v1/admin/users/carol", { auth: admin, json: { restricted: true } })
      assert.strictEqual(restricted.status, 200)
      assert.strictEqual(at(restricted.body, "restricted"), true)
      assert.strictEqual(at(restricted.body, "full_name"), "Full Name Carol")
      const loginAlone = yield* request("PATCH", "/api/v1/admin/users/carol", { auth: admin, json: { login_name: "carol" } })
      assert.strictEqual(loginAlone.status, 422)
      const sourceAlone = yield* request("PATCH", "/api/v1/admin/users/carol", { auth: admin, json: { source_id: 0 } })
      assert.strictEqual(sourceAlone.status, 422)
      const both = yield* request("PATCH", "/api/v1/admin/users/carol", { auth: admin, json: { login_name: "carol", source_id: 0 } })
      assert.strictEqual(both.status, 200)
      const taken = yield* request("PATCH", "/api/v1/admin/users/carol", { auth: admin, json: { email: "alice@example.com" } })
      assert.strictEqual(taken.status, 400)
      assert.strictEqual(at(taken.body, "message"), "e-mail already in use [email: alice@example.com]")
      const unknown = yield* request("PATCH", "/api/v1/admin/users/nobody", { auth: admin, json: {} })
      assert.strictEqual(unknown.status, 404)
      const password = yield* request("PATCH", "/api/v1/admin/users/carol", { auth: admin, json: { password: "brand-new-pass", must_change_password: false } })
      assert.strictEqual(password.status, 200)
      const signIn = yield* request("GET", "/api/v1/user", { auth: TestServer.basic("carol", "brand-new-pass") })
      assert.strictEqual(signIn.status, 200)
    }))

  it.effect("refuses to delete oneself or an unknown user", () =>
    Effect.gen(function*() {
      const self = yield* request("DELETE", "/api/v1/admin/users/root", { auth: admin })
      assert.strictEqual(self.status, 422)
      assert.strictEqual(at(self.body, "message"), "you cannot delete yourself")
    }))

  it.effect("lists users with paging headers", () =>
    Effect.gen(function*() {
      const total = (yield* request("GET", "/api/v1/admin/users?limit=50", { auth: admin })).headers.get("x-total-count")
      const page = yield* request("GET", "/api/v1/admin/users?limit=2&page=2&sort=alphabetically", { auth: admin })
      assert.strictEqual(page.status, 200)
      assert.strictEqual(page.headers.get("x-total-count"), total)
      assert.strictEqual((page.body as Array<unknown>).length, 2)
      const link = page.headers.get("link") ?? ""
      assert.include(link, `<${ROOT_URL}api/v1/admin/users?limit=2&page=3&sort=alphabetically>; rel="next"`)
      assert.include(link, `<${ROOT_URL}api/v1/admin/users?limit=2&page=1&sort=alphabetically>; rel="first"`)
      assert.include(link, `rel="prev"`)
      const names = (page.body as Array<unknown>).map((u) => String(at(u, "login")).toLowerCase())
      assert.deepStrictEqual(names, [...names].sort())
    }))

  it.effect("enforces token scopes: admin routes need the admin category (TOK-06)", () =>
    Effect.gen(function*() {
      const readUser = yield* createToken(admin, "root", "read-user-only", ["read:user", "write:repository"])
      const refused = yield* request("GET", "/api/v1/admin/users", { auth: { token: readUser } })
      assert.strictEqual(refused.status, 403)
      assert.deepStrictEqual(refused.body, { message: "token does not have at least one of required scope(s): [read:admin]", url: errorUrl })
      const readAdmin = yield* createToken(admin, "root", "read-admin", ["read:admin"])
      assert.strictEqual((yield* request("GET", "/api/v1/admin/users", { auth: { bearer: readAdmin } })).status, 200)
      const write = yield* request("POST", "/api/v1/admin/users", { auth: { token: readAdmin }, json: {} })
      assert.strictEqual(write.status, 403)
      assert.strictEqual(at(write.body, "message"), "token does not have at least one of required scope(s): [write:admin]")
      // Password sign-in carries no scope restriction.
      assert.strictEqual((yield* request("GET", "/api/v1/admin/users", { auth: admin })).status, 200)
    }))
})

describe("admin users on a small body limit", () => {
  layer(TestServer.layer({ maxBodySize: 200 }), { timeout: "120 seconds" })((it) => {
    it.effect("answers 413 for a body over the limit", () =>
      Effect.gen(function*() {
        const response = yield* request("POST", "/api/v1/admin/users", {
          auth: admin,
          json: { username: "big", email: "big@example.com", password: "p".repeat(500) }
        })
        assert.strictEqual(response.status, 413)
        assert.strictEqual(at(response.body, "url"), errorUrl)
      }))

    it.effect("answers 413 for a chunked body over the limit, which declares no length", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const json = JSON.stringify({ username: "big", email: "big@example.com", password: "p".repeat(500) })
        const response = yield* Effect.promise(() =>
          fetch(`${url}/api/v1/admin/users`, {
            method: "POST",
            headers: { authorization: `Basic ${btoa(`${ADMIN.username}:${ADMIN.password}`)}`, "content-type": "application/json" },
            // A stream is sent chunked (transfer-encoding), without content-length.
            body: new Blob([json]).stream(),
            duplex: "half"
          })
        )
        // The platform answers the overflow itself once the body is cut off: the status, no JSON body.
        assert.strictEqual(response.status, 413)
        assert.strictEqual((yield* request("GET", "/api/v1/users/big", { auth: admin })).status, 404)
      }))
  })
})
