/**
 * Issue 16: the answers a Forgejo client gets, checked against Forgejo's own (status, body,
 * headers), one test per reported class.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`

/** Every User object, at any depth, carries `username` equal to its `login`, as its last key. */
const assertUsernames = (value: unknown, where: string): number => {
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + assertUsernames(item, where), 0)
  if (typeof value !== "object" || value === null) return 0
  const record = value as Record<string, unknown>
  let users = 0
  if ("login" in record && "login_name" in record) {
    const keys = Object.keys(record)
    assert.strictEqual(keys[keys.length - 1], "username", `${where}: ${keys.join(",")}`)
    assert.strictEqual(record.username, record.login, where)
    users += 1
  }
  return Object.values(record).reduce((n: number, item) => n + assertUsernames(item, where), users)
}

layer(TestServer.layer(), { timeout: "180 seconds" })("Forgejo compatibility (issue 16)", (it) => {
  it.effect("every User object carries username, nested ones included", () =>
    Effect.gen(function*() {
      const alice = yield* createUser("u-alice")
      const bob = yield* createUser("u-bob")
      yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "r", auto_init: true } })
      yield* request("PUT", "/api/v1/repos/u-alice/r/collaborators/u-bob", { auth: alice.auth, json: { permission: "read" } })
      yield* request("POST", "/api/v1/repos/u-alice/r/releases", { auth: alice.auth, json: { tag_name: "v1" } })
      const org = yield* request("POST", "/api/v1/orgs", { auth: alice.auth, json: { username: "u-org" } })
      assert.strictEqual(org.status, 201, org.text)
      const reads: ReadonlyArray<[string, string, TestServer.Auth | undefined, number]> = [
        ["GET", "/api/v1/user", alice.auth, 1],
        ["GET", "/api/v1/users/u-bob", alice.auth, 1],
        ["GET", "/api/v1/users/u-bob", undefined, 1],
        ["GET", "/api/v1/users/search?q=u-", alice.auth, 2],
        ["GET", "/api/v1/admin/users", admin, 3],
        ["GET", "/api/v1/repos/u-alice/r", undefined, 1],
        ["GET", "/api/v1/repos/u-alice/r/collaborators", alice.auth, 1],
        ["GET", "/api/v1/repos/u-alice/r/collaborators/u-bob/permission", alice.auth, 1],
        ["GET", "/api/v1/repos/u-alice/r/releases", alice.auth, 1],
        ["GET", "/api/v1/orgs/u-org/members", alice.auth, 1],
        ["GET", "/api/v1/orgs/u-org/public_members", alice.auth, 0]
      ]
      for (const [method, path, auth, least] of reads) {
        const response = yield* request(method, path, { auth })
        assert.strictEqual(response.status, 200, `${path}: ${response.text}`)
        assert.isAtLeast(assertUsernames(response.body, path), least, path)
      }
      const edited = yield* request("PATCH", "/api/v1/admin/users/u-bob", { auth: admin, json: { full_name: "Bob" } })
      assert.strictEqual(edited.status, 200, edited.text)
      assert.strictEqual(assertUsernames(edited.body, "admin edit"), 1)
      assert.strictEqual(assertUsernames(bob.user, "admin create"), 1)

      const swagger = yield* request("GET", "/swagger.v1.json")
      assert.deepStrictEqual(at(swagger.body, "definitions", "User", "properties", "username"), { type: "string" })
    }))

  it.effect("PUT collaborators with no body adds a writer (204)", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("c-owner")
      yield* createUser("c-writer")
      yield* createUser("c-nulled")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "r" } })
      const added = yield* request("PUT", "/api/v1/repos/c-owner/r/collaborators/c-writer", { auth: owner.auth })
      assert.deepStrictEqual([added.status, added.text], [204, ""])
      const permission = yield* request("GET", "/api/v1/repos/c-owner/r/collaborators/c-writer/permission", { auth: owner.auth })
      assert.strictEqual(at(permission.body, "permission"), "write")
      const nulled = yield* request("PUT", "/api/v1/repos/c-owner/r/collaborators/c-nulled", { auth: owner.auth, body: "null" })
      assert.deepStrictEqual([nulled.status, nulled.text], [204, ""])
      // An option with a required field still answers Forgejo's binding error to an empty body.
      const noName = yield* request("POST", "/api/v1/orgs", { auth: owner.auth, body: "" })
      assert.deepStrictEqual([noName.status, noName.body], [422, { message: "[UserName]: Required", url: errorUrl }])
    }))
})
