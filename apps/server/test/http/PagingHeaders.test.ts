/**
 * Issue 21, point 4: X-Total-Count and Link on every list route (the audit is
 * apps/server/PAGING.md), one route per family, the other query values kept.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addToTeam, createOrg, createTeam } from "../support/OrgFixtures.ts"
import { admin, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const linkTo = (path: string, query: string, rel: string) => `<${ROOT_URL}${path.replace(/^\//, "")}?${query}>; rel="${rel}"`

/** Page 2 of 3 (limit 1): every relation, the extra `x` query value kept, keys sorted as Forgejo does. */
const expectMiddlePage = (path: string, auth: TestServer.Auth) =>
  Effect.gen(function*() {
    const answer = yield* request("GET", `${path}?x=kept&limit=1&page=2`, { auth })
    assert.strictEqual(answer.status, 200, `${path}: ${answer.text}`)
    assert.strictEqual(answer.headers.get("x-total-count"), "3", path)
    assert.strictEqual(answer.headers.get("link"), [
      linkTo(path, "limit=1&page=3&x=kept", "next"),
      linkTo(path, "limit=1&page=3&x=kept", "last"),
      linkTo(path, "limit=1&page=1&x=kept", "first"),
      linkTo(path, "limit=1&page=1&x=kept", "prev")
    ].join(","), path)
    assert.include(answer.headers.get("access-control-expose-headers") ?? "", "X-Total-Count", path)
    assert.include(answer.headers.get("access-control-expose-headers") ?? "", "Link", path)
    assert.strictEqual((answer.body as ReadonlyArray<unknown>).length, 1, path)
  })

layer(TestServer.layer(), { timeout: "300 seconds" })("paging headers", (it) => {
  it.effect("lists of tokens, keys, collaborators, teams, members, team members and hooks page with links", () =>
    Effect.gen(function*() {
      const alice = yield* createUser("alice")
      for (const name of ["one", "two", "three"]) yield* createToken(alice.auth, "alice", name, ["all"])
      yield* expectMiddlePage("/api/v1/users/alice/tokens", alice.auth)

      const made = yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "listed" } })
      assert.strictEqual(made.status, 201, made.text)
      for (const name of ["bob", "carol", "dave"]) {
        yield* createUser(name)
        const added = yield* request("PUT", `/api/v1/repos/alice/listed/collaborators/${name}`, { auth: alice.auth, json: {} })
        assert.strictEqual(added.status, 204, added.text)
      }
      yield* expectMiddlePage("/api/v1/repos/alice/listed/collaborators", alice.auth)

      yield* createOrg(alice.auth, "guild")
      const team = yield* createTeam(alice.auth, "guild", { name: "makers", permission: "read", units: ["repo.code"] })
      yield* createTeam(alice.auth, "guild", { name: "testers", permission: "read", units: ["repo.code"] })
      yield* expectMiddlePage("/api/v1/orgs/guild/teams", alice.auth)
      for (const name of ["bob", "carol", "dave"]) yield* addToTeam(alice.auth, team, name)
      yield* expectMiddlePage(`/api/v1/teams/${team}/members`, alice.auth)
      // Members: alice (owner) and the three team members: four, so page 2 of 4 here.
      const members = yield* request("GET", "/api/v1/orgs/guild/members?limit=2&page=1", { auth: alice.auth })
      assert.strictEqual(members.headers.get("x-total-count"), "4")
      assert.include(members.headers.get("link") ?? "", 'rel="next"')
      for (const n of [1, 2, 3]) {
        const hook = yield* request("POST", "/api/v1/orgs/guild/hooks", {
          auth: alice.auth,
          json: { type: "gitea", config: { url: `https://hooks.example.com/${n}`, content_type: "json" }, active: true }
        })
        assert.strictEqual(hook.status, 201, hook.text)
      }
      yield* expectMiddlePage("/api/v1/orgs/guild/hooks", alice.auth)
    }))

  it.effect("lists that are never paged answer their count and no link", () =>
    Effect.gen(function*() {
      const rules = yield* request("GET", "/api/v1/admin/quota/rules", { auth: admin })
      assert.strictEqual(rules.status, 200, rules.text)
      assert.strictEqual(rules.headers.get("x-total-count"), String((rules.body as ReadonlyArray<unknown>).length))
      assert.isNull(rules.headers.get("link"))
      const groups = yield* request("GET", "/api/v1/admin/quota/groups", { auth: admin })
      assert.strictEqual(groups.headers.get("x-total-count"), "0")
      const forks = yield* request("GET", "/api/v1/repos/alice/listed/forks", { auth: admin })
      assert.strictEqual(forks.status, 200, forks.text)
      assert.strictEqual(forks.headers.get("x-total-count"), "0")
      assert.isNull(forks.headers.get("link"))
    }))
})
