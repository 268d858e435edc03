import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addToTeam, createOrg, createTeam, names } from "../support/OrgFixtures.ts"
import { at, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

layer(TestServer.layer(), { timeout: "120 seconds" })("team repositories", (it) => {
  it.effect("adds, lists, checks and removes a team's repositories, which grants its members access", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("teamowner")
      const member = yield* createUser("teammember")
      const stranger = yield* createUser("teamstranger")
      yield* createOrg(owner.auth, "repo-org")
      for (const name of ["beta", "alpha", "gamma"]) {
        const created = yield* request("POST", "/api/v1/orgs/repo-org/repos", { auth: owner.auth, json: { name, private: true } })
        assert.strictEqual(created.status, 201)
      }
      const writers = yield* createTeam(owner.auth, "repo-org", { name: "writers", permission: "write", units: ["repo.code"] })
      yield* addToTeam(owner.auth, writers, "teammember")

      assert.strictEqual((yield* request("GET", "/api/v1/repos/repo-org/alpha", { auth: member.auth })).status, 404)
      // The `{org}` segment is ignored: the repository is looked up in the team's organization.
      const added = yield* request("PUT", `/api/v1/teams/${writers}/repos/whatever/alpha`, { auth: owner.auth })
      assert.strictEqual(added.status, 204)
      assert.strictEqual((yield* request("PUT", `/api/v1/teams/${writers}/repos/repo-org/beta`, { auth: owner.auth })).status, 204)

      const listed = yield* request("GET", `/api/v1/teams/${writers}/repos`, { auth: member.auth })
      assert.strictEqual(listed.status, 200)
      assert.deepStrictEqual(names(listed.body), ["alpha", "beta"])
      assert.strictEqual(listed.headers.get("x-total-count"), "2")
      assert.deepStrictEqual(at(listed.body, 0, "permissions"), { admin: false, push: true, pull: true })

      const memberView = yield* request("GET", "/api/v1/repos/repo-org/alpha", { auth: member.auth })
      assert.strictEqual(memberView.status, 200)
      assert.strictEqual(at(memberView.body, "permissions", "push"), true)
      assert.strictEqual((yield* request("GET", `/api/v1/teams/${writers}/repos/repo-org/alpha/`, { auth: member.auth })).status, 200)
      assert.strictEqual((yield* request("GET", `/api/v1/teams/${writers}/repos/repo-org/gamma`, { auth: member.auth })).status, 404)
      assert.strictEqual((yield* request("GET", `/api/v1/teams/${writers}/repos/repo-org/alpha`, { auth: stranger.auth })).status, 404)

      // Only organization owners change a team's repositories, even a member who administers the
      // repository through another team (Forgejo lets such an admin through); the others get Forgejo's 403.
      const admins = yield* createTeam(owner.auth, "repo-org", { name: "admins", permission: "admin", units: ["repo.code"] })
      yield* addToTeam(owner.auth, admins, "teammember")
      assert.strictEqual((yield* request("PUT", `/api/v1/teams/${admins}/repos/repo-org/gamma`, { auth: owner.auth })).status, 204)
      assert.strictEqual(at(yield* request("GET", "/api/v1/repos/repo-org/gamma", { auth: member.auth }), "body", "permissions", "admin"), true)
      const refused = yield* request("DELETE", `/api/v1/teams/${writers}/repos/repo-org/beta`, { auth: member.auth })
      assert.deepStrictEqual([refused.status, at(refused.body, "message")], [403, "Must be an organization owner"])
      const attached = yield* request("PUT", `/api/v1/teams/${writers}/repos/repo-org/gamma`, { auth: member.auth })
      assert.strictEqual(attached.status, 403, attached.text)
      assert.strictEqual((yield* request("DELETE", `/api/v1/teams/${admins}/repos/repo-org/gamma`, { auth: member.auth })).status, 403)
      assert.strictEqual((yield* request("GET", `/api/v1/teams/${writers}/repos/repo-org/gamma`, { auth: owner.auth })).status, 404)
      assert.strictEqual((yield* request("DELETE", `/api/v1/teams/${admins}/repos/repo-org/gamma`, { auth: owner.auth })).status, 204)
      assert.strictEqual((yield* request("PUT", `/api/v1/teams/${writers}/repos/repo-org/nope`, { auth: owner.auth })).status, 404)

      assert.strictEqual((yield* request("DELETE", `/api/v1/teams/${writers}/repos/repo-org/alpha`, { auth: owner.auth })).status, 204)
      assert.strictEqual((yield* request("GET", "/api/v1/repos/repo-org/alpha", { auth: member.auth })).status, 404)
      const after = yield* request("GET", `/api/v1/teams/${writers}/repos`, { auth: member.auth })
      assert.deepStrictEqual(names(after.body), ["beta"])
    }))

  it.effect("lists every repository of the organization for a team that includes all of them", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("allowner")
      yield* createOrg(owner.auth, "all-org")
      for (const name of ["one", "two"]) {
        yield* request("POST", "/api/v1/orgs/all-org/repos", { auth: owner.auth, json: { name } })
      }
      const readers = yield* createTeam(owner.auth, "all-org", {
        name: "readers",
        permission: "read",
        units: ["repo.code"],
        includes_all_repositories: true
      })
      const listed = yield* request("GET", `/api/v1/teams/${readers}/repos`, { auth: owner.auth })
      assert.deepStrictEqual(names(listed.body), ["one", "two"])
      assert.strictEqual(listed.headers.get("x-total-count"), "2")
    }))
})
