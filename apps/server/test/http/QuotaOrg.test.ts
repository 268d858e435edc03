/**
 * Spec 4.7 for organizations end to end: who may read an organization's quota (owners and site
 * admins; members and outsiders of public or private organizations 403; unknown organizations 404;
 * anonymous 401), token scopes, groups
 * assigned to organizations, and usage counted toward the organization whoever made the repository.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, at, createToken, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { adminCall, check, error, errorUrl, expectStatus, pushBigCommit, usedOf, zeroUsage } from "./QuotaFixtures.ts"

layer(TestServer.layer(), { timeout: "120 seconds" })("organization quota", (it) => {
  it.effect("organizations: owners and site admins read, others 403 (private organizations too), unknown 404", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("quota-org-owner")
      const member = yield* createUser("quota-org-member")
      const stranger = yield* createUser("quota-org-stranger")
      yield* Effect.flatMap(request("POST", "/api/v1/orgs", { auth: owner.auth, json: { username: "quota-org" } }), expectStatus("org", 201))
      yield* Effect.flatMap(
        request("POST", "/api/v1/orgs", { auth: owner.auth, json: { username: "quota-private-org", visibility: "private" } }),
        expectStatus("private org", 201)
      )
      const team = yield* Effect.flatMap(
        request("POST", "/api/v1/orgs/quota-org/teams", { auth: owner.auth, json: { name: "readers", permission: "read", units: ["repo.code"] } }),
        expectStatus("team", 201)
      )
      yield* Effect.flatMap(
        request("PUT", `/api/v1/teams/${String(at(team.body, "id"))}/members/quota-org-member`, { auth: owner.auth }),
        expectStatus("membership", 204)
      )

      for (const suffix of ["", "/check?subject=size:all", "/attachments", "/packages", "/artifacts"]) {
        const path = `/api/v1/orgs/quota-org/quota${suffix}`
        assert.strictEqual((yield* request("GET", path, { auth: owner.auth })).status, 200, path)
        assert.strictEqual((yield* request("GET", path, { auth: admin })).status, 200, path)
        const refused = yield* request("GET", path, { auth: member.auth })
        assert.strictEqual(refused.status, 403, path)
        assert.deepStrictEqual(refused.body, error("Must be an organization owner"))
        assert.strictEqual((yield* request("GET", path, { auth: stranger.auth })).status, 403, path)
        assert.strictEqual((yield* request("GET", path)).status, 401, path)
        const unknown = yield* request("GET", `/api/v1/orgs/no-such-org/quota${suffix}`, { auth: admin })
        assert.strictEqual(unknown.status, 404, suffix)
        assert.deepStrictEqual(unknown.body, {
          message: "GetOrgByName",
          url: errorUrl,
          errors: ["org does not exist [id: 0, name: no-such-org]"]
        })
        // A private organization is not hidden here: the caller may not read its quota (spec 4.7).
        const hidden = yield* request("GET", `/api/v1/orgs/quota-private-org/quota${suffix}`, { auth: stranger.auth })
        assert.deepStrictEqual([hidden.status, hidden.body], [403, error("Must be an organization owner")], suffix)
      }
      const info = yield* request("GET", "/api/v1/orgs/quota-org/quota", { auth: owner.auth })
      assert.deepStrictEqual(info.body, { used: zeroUsage, groups: [] })

      // Organizations are put in groups like users.
      yield* adminCall("POST", "/admin/quota/groups", 201, { name: "org-deny", rules: [{ name: "org-deny-all", limit: 0, subjects: ["size:all"] }] })
      yield* adminCall("PUT", "/admin/quota/groups/org-deny/users/quota-org", 204)
      const members = yield* request("GET", "/api/v1/admin/quota/groups/org-deny/users", { auth: admin })
      assert.deepStrictEqual((members.body as ReadonlyArray<unknown>).map((user) => at(user, "login")), ["quota-org"])
      assert.strictEqual(yield* check(owner.auth, "/orgs/quota-org", "size:all"), true)
      assert.strictEqual(yield* check(owner.auth, "/user", "size:all"), false)
      assert.deepStrictEqual(
        at((yield* request("GET", "/api/v1/orgs/quota-org/quota", { auth: owner.auth })).body, "groups"),
        [{ rules: [{ limit: 0, subjects: ["size:all"] }] }]
      )
      const refusedSubject = yield* request("GET", "/api/v1/orgs/quota-org/quota/check?subject=size:bogus", { auth: owner.auth })
      assert.strictEqual(refusedSubject.status, 422)
    }))


  it.effect("token scopes: user scope for /user/quota, organization scope for /orgs/{org}/quota", () =>
    Effect.gen(function*() {
      const heidi = yield* createUser("quota-heidi")
      yield* Effect.flatMap(request("POST", "/api/v1/orgs", { auth: heidi.auth, json: { username: "heidi-org" } }), expectStatus("org", 201))
      const userToken = yield* createToken(heidi.auth, "quota-heidi", "user-only", ["read:user"])
      const orgToken = yield* createToken(heidi.auth, "quota-heidi", "org-only", ["read:organization"])
      assert.strictEqual((yield* request("GET", "/api/v1/user/quota", { auth: { token: userToken } })).status, 200)
      const userRefused = yield* request("GET", "/api/v1/user/quota", { auth: { token: orgToken } })
      assert.strictEqual(userRefused.status, 403)
      assert.deepStrictEqual(userRefused.body, error("token does not have at least one of required scope(s): [read:user]"))
      assert.strictEqual((yield* request("GET", "/api/v1/orgs/heidi-org/quota", { auth: { token: orgToken } })).status, 200)
      const orgRefused = yield* request("GET", "/api/v1/orgs/heidi-org/quota", { auth: { token: userToken } })
      assert.strictEqual(orgRefused.status, 403)
      assert.deepStrictEqual(orgRefused.body, error("token does not have at least one of required scope(s): [read:organization]"))
    }))

  it.effect("an organization's usage counts its repositories, whoever created or pushed them", () =>
    Effect.gen(function*() {
      const judy = yield* createUser("quota-judy")
      const pusher = yield* createUser("quota-pusher")
      yield* Effect.flatMap(request("POST", "/api/v1/orgs", { auth: judy.auth, json: { username: "judy-org" } }), expectStatus("org", 201))
      const byOwner = yield* request("POST", "/api/v1/orgs/judy-org/repos", { auth: judy.auth, json: { name: "by-owner", auto_init: true } })
      assert.strictEqual(byOwner.status, 201, byOwner.text)
      const byAdmin = yield* request("POST", "/api/v1/orgs/judy-org/repos", { auth: admin, json: { name: "by-admin", auto_init: true, private: true } })
      assert.strictEqual(byAdmin.status, 201, byAdmin.text)
      const org = yield* usedOf(judy.auth, "/orgs/judy-org")
      assert.isAbove(org.public, 0)
      assert.isAbove(org.private, 0)
      assert.deepStrictEqual(yield* usedOf(judy.auth, "/user"), { public: 0, private: 0 })
      assert.deepStrictEqual(yield* usedOf(admin, "/user"), { public: 0, private: 0 })

      // A push by somebody else grows the organization's usage, not the pusher's.
      yield* pushBigCommit("judy-org", "by-owner", Number(at(byOwner.body, "id")))
      const afterPush = yield* usedOf(judy.auth, "/orgs/judy-org")
      assert.isAbove(afterPush.public, org.public + 200 * 1024)
      assert.strictEqual(afterPush.private, org.private)
      assert.deepStrictEqual(yield* usedOf(pusher.auth, "/user"), { public: 0, private: 0 })
      const adminView = yield* request("GET", "/api/v1/admin/users/judy-org/quota", { auth: admin })
      assert.deepStrictEqual(at(adminView.body, "used", "size", "repos"), { public: afterPush.public, private: afterPush.private })

      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/judy-org/by-owner", { auth: judy.auth })).status, 204)
      assert.deepStrictEqual(yield* usedOf(judy.auth, "/orgs/judy-org"), { public: 0, private: org.private })
    }))

  it.effect("the served API description says that `true` means over quota", () =>
    Effect.gen(function*() {
      const document = (yield* request("GET", "/swagger.v1.json")).body
      const description = String(at(document, "paths", "/orgs/{org}/quota/check", "get", "description"))
      assert.match(description, /^Answers `true` when the organization is OVER quota for the subject and `false` when within it/)
      assert.include(description, "Forgejo answers the opposite value")
      assert.strictEqual(at(document, "paths", "/orgs/{org}/quota/check", "get", "operationId"), "orgCheckQuota")
    }))
})
