/**
 * The signed-in user's quota endpoints end to end (behaviour cases QM-04, QM-19, QU-09..QU-11 with the
 * spec's reading of the check): usage shape, names hidden, the over-quota check, default groups, the
 * asset lists with paging headers, usage following repositories, and `GET /user/repos?order_by=`.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { adminCall, check, error, expectStatus, pushBigCommit, usedOf, zeroUsage } from "./QuotaFixtures.ts"

layer(TestServer.layer(), { timeout: "120 seconds" })("quota usage", (it) => {
  it.effect("a fresh user has zero usage, no groups and empty lists (QM-04)", () =>
    Effect.gen(function*() {
      const user = yield* createUser("quota-empty-user")
      const info = yield* request("GET", "/api/v1/user/quota", { auth: user.auth })
      assert.strictEqual(info.status, 200)
      assert.strictEqual(
        info.text,
        `{"used":{"size":{"repos":{"public":0,"private":0},"git":{"LFS":0},` +
          `"assets":{"attachments":{"issues":0,"releases":0},"artifacts":0,"packages":{"all":0}}}},"groups":[]}`
      )
      for (const list of ["attachments", "packages", "artifacts"]) {
        const response = yield* request("GET", `/api/v1/user/quota/${list}?page=2&limit=5`, { auth: user.auth })
        assert.strictEqual(response.status, 200, list)
        assert.strictEqual(response.text, "[]")
        assert.strictEqual(response.headers.get("x-total-count"), "0")
        assert.include(response.headers.get("access-control-expose-headers") ?? "", "X-Total-Count")
        // Page 2 of nothing: only the links back.
        assert.strictEqual(
          response.headers.get("link"),
          `<${ROOT_URL}api/v1/user/quota/${list}?limit=5&page=1>; rel="first",<${ROOT_URL}api/v1/user/quota/${list}?limit=5&page=1>; rel="prev"`
        )
      }
      const anonymous = yield* request("GET", "/api/v1/user/quota")
      assert.strictEqual(anonymous.status, 401)
      assert.deepStrictEqual(anonymous.body, error("token is required"))
      assert.strictEqual((yield* request("GET", "/api/v1/user/quota/check?subject=size:all")).status, 401)
      assert.strictEqual((yield* request("GET", "/api/v1/user/quota/attachments")).status, 401)
    }))

  it.effect("shows the user's groups without names (QM-19, QU-10); admins see the names", () =>
    Effect.gen(function*() {
      yield* createUser("quota-named")
      yield* adminCall("POST", "/admin/quota/groups", 201, {
        name: "named-1",
        rules: [{ name: "named-all", limit: 0, subjects: ["size:all"] }, { name: "named-repos", limit: 15728640, subjects: ["size:repos:all"] }]
      })
      yield* adminCall("POST", "/admin/quota/groups", 201, { name: "named-2", rules: [{ name: "named-assets", limit: -1 }] })
      yield* adminCall("POST", "/admin/users/quota-named/quota/groups", 204, { groups: ["named-1", "named-2"] })
      const own = yield* request("GET", "/api/v1/user/quota", { auth: TestServer.basic("quota-named", "quota-named-password") })
      assert.deepStrictEqual(own.body, {
        used: zeroUsage,
        groups: [
          { rules: [{ limit: 0, subjects: ["size:all"] }, { limit: 15728640, subjects: ["size:repos:all"] }] },
          { rules: [{ limit: -1 }] }
        ]
      })
      const viewed = yield* request("GET", "/api/v1/admin/users/quota-named/quota", { auth: admin })
      assert.deepStrictEqual(at(viewed.body, "groups", 0, "name"), "named-1")
      assert.deepStrictEqual(at(viewed.body, "groups", 0, "rules", 1, "name"), "named-repos")
    }))

  it.effect("checks answer true when over quota, false when within; unknown subjects are 422 (QU-11)", () =>
    Effect.gen(function*() {
      const grace = yield* createUser("quota-grace")
      const path = "/user"
      // No groups at all: nothing limits the owner.
      assert.strictEqual(yield* check(grace.auth, path, "size:all"), false)

      yield* adminCall("POST", "/admin/quota/groups", 201, {
        name: "check-group",
        rules: [{ name: "check-all", limit: 0, subjects: ["size:all"] }, { name: "check-repos", limit: 15728640, subjects: ["size:repos:all"] }]
      })
      yield* adminCall("PUT", "/admin/quota/groups/check-group/users/quota-grace", 204)
      // Usage 0 is not below a limit of 0: the rule on size:all does not stand.
      assert.strictEqual(yield* check(grace.auth, path, "size:all"), true)
      // A rule on size:all limits every part of it: unlike Forgejo, no rule is looked past.
      assert.strictEqual(yield* check(grace.auth, path, "size:repos:public"), true)
      assert.strictEqual(yield* check(grace.auth, path, "size:wiki"), false)

      yield* adminCall("PATCH", "/admin/quota/rules/check-all", 200, { limit: -1 })
      assert.strictEqual(yield* check(grace.auth, path, "size:all"), false)
      assert.strictEqual(yield* check(grace.auth, path, "size:repos:all"), false)
      yield* adminCall("PATCH", "/admin/quota/rules/check-repos", 200, { limit: 0 })
      assert.strictEqual(yield* check(grace.auth, path, "size:repos:all"), true)
      assert.strictEqual(yield* check(grace.auth, path, "size:assets:all"), false)

      const response = yield* request("GET", "/api/v1/user/quota/check?subject=size:all", { auth: grace.auth })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.text, "true")
      for (const [query, subject] of [["?subject=size:assets:wikis", "size:assets:wikis"], ["?subject=nope", "nope"], ["", ""]] as const) {
        const refused = yield* request("GET", `/api/v1/user/quota/check${query}`, { auth: grace.auth })
        assert.strictEqual(refused.status, 422, query)
        assert.deepStrictEqual(refused.body, error(`unrecognized quota limit subject: [subject: ${subject}]`))
      }
    }))

  it.effect("usage follows pushes and deletions of repositories", () =>
    Effect.gen(function*() {
      const judy = yield* createUser("quota-judy")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: judy.auth, json: { name: "pushed", auto_init: true } })
      assert.strictEqual(created.status, 201, created.text)
      const afterCreate = yield* usedOf(judy.auth, "/user")
      assert.isAbove(afterCreate.public, 0)
      assert.strictEqual(afterCreate.private, 0)

      const secret = yield* request("POST", "/api/v1/user/repos", { auth: judy.auth, json: { name: "secret", auto_init: true, private: true } })
      assert.strictEqual(secret.status, 201, secret.text)
      const withPrivate = yield* usedOf(judy.auth, "/user")
      assert.strictEqual(withPrivate.public, afterCreate.public)
      assert.isAbove(withPrivate.private, 0)

      yield* pushBigCommit("quota-judy", "pushed", Number(at(created.body, "id")))
      const afterPush = yield* usedOf(judy.auth, "/user")
      assert.isAbove(afterPush.public, afterCreate.public + 200 * 1024)
      // The admin view and the check read the same usage.
      yield* adminCall("POST", "/admin/quota/groups", 201, { name: "judy-group", rules: [{ name: "judy-repos", limit: afterPush.public + afterPush.private + 1, subjects: ["size:repos:all"] }] })
      yield* adminCall("PUT", "/admin/quota/groups/judy-group/users/quota-judy", 204)
      assert.strictEqual(yield* check(judy.auth, "/user", "size:repos:all"), false)
      yield* adminCall("PATCH", "/admin/quota/rules/judy-repos", 200, { limit: afterPush.public + afterPush.private })
      assert.strictEqual(yield* check(judy.auth, "/user", "size:repos:all"), true)

      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/quota-judy/pushed", { auth: judy.auth })).status, 204)
      assert.deepStrictEqual(yield* usedOf(judy.auth, "/user"), { public: 0, private: withPrivate.private })
      assert.strictEqual(yield* check(judy.auth, "/user", "size:repos:all"), false)
    }))

  it.effect("GET /user/repos orders by size (ascending) and by Forgejo's other order_by values; unknown ones are 422", () =>
    Effect.gen(function*() {
      const kim = yield* createUser("quota-kim")
      yield* Effect.flatMap(request("POST", "/api/v1/user/repos", { auth: kim.auth, json: { name: "b-empty" } }), expectStatus("empty", 201))
      yield* Effect.flatMap(request("POST", "/api/v1/user/repos", { auth: kim.auth, json: { name: "c-small", auto_init: true } }), expectStatus("small", 201))
      const big = yield* Effect.flatMap(
        request("POST", "/api/v1/user/repos", { auth: kim.auth, json: { name: "a-big", auto_init: true } }),
        expectStatus("big", 201)
      )
      yield* pushBigCommit("quota-kim", "a-big", Number(at(big.body, "id")))
      const order = (orderBy: string) =>
        Effect.map(request("GET", `/api/v1/user/repos?order_by=${orderBy}`, { auth: kim.auth }), (response) =>
          (response.body as ReadonlyArray<unknown>).map((repo) => at(repo, "name")))
      assert.deepStrictEqual(yield* order("size"), ["b-empty", "c-small", "a-big"])
      assert.deepStrictEqual(yield* order("reversesize"), ["a-big", "c-small", "b-empty"])
      assert.deepStrictEqual(yield* order("name"), ["a-big", "b-empty", "c-small"])
      assert.deepStrictEqual(yield* order("reversealphabetically"), ["c-small", "b-empty", "a-big"])
      assert.deepStrictEqual(yield* order("newest"), ["a-big", "c-small", "b-empty"])
      for (const orderBy of ["id", "oldest", "recentupdate", "leastupdate", "alphabetically", "gitsize", "reversegitsize",
        "lfssize", "reverselfssize", "moststars", "feweststars", "mostforks", "fewestforks"]) {
        assert.strictEqual((yield* request("GET", `/api/v1/user/repos?order_by=${orderBy}`, { auth: kim.auth })).status, 200, orderBy)
      }
      const unknown = yield* request("GET", "/api/v1/user/repos?order_by=largest", { auth: kim.auth })
      assert.strictEqual(unknown.status, 422)
      assert.deepStrictEqual(unknown.body, error("invalid order_by"))
    }))

  it.effect("the served API description says that `true` means over quota", () =>
    Effect.gen(function*() {
      const document = (yield* request("GET", "/swagger.v1.json")).body
      const description = String(at(document, "paths", "/user/quota/check", "get", "description"))
      assert.match(description, /^Answers `true` when the authenticated user is OVER quota for the subject and `false` when within it/)
      assert.include(description, "Forgejo answers the opposite value")
      assert.strictEqual(at(document, "paths", "/user/quota/check", "get", "operationId"), "userCheckQuota")
      assert.strictEqual(at(document, "paths", "/admin/quota/rules/{quotarule}", "delete", "operationId"), "adminDEleteQuotaRule")
      assert.deepStrictEqual(
        Object.keys(at(document, "definitions", "QuotaUsedSizeGit", "properties") as object),
        ["LFS"]
      )
    }))
})

describe("default groups", () => {
  layer(TestServer.layer({ quotaDefaultGroups: ["missing-group", "fallback"] }), { timeout: "120 seconds" })("quota usage", (it) => {
    it.effect("limit owners without groups; existing names only; an assignment replaces them", () =>
      Effect.gen(function*() {
        const ivan = yield* createUser("quota-ivan")
        // The configured groups do not exist yet: nothing limits ivan.
        assert.strictEqual(yield* check(ivan.auth, "/user", "size:all"), false)
        assert.deepStrictEqual(at((yield* request("GET", "/api/v1/user/quota", { auth: ivan.auth })).body, "groups"), [])

        yield* adminCall("POST", "/admin/quota/groups", 201, { name: "fallback", rules: [{ name: "fallback-deny", limit: 0, subjects: ["size:git:all"] }] })
        assert.strictEqual(yield* check(ivan.auth, "/user", "size:git:all"), true)
        assert.strictEqual(yield* check(ivan.auth, "/user", "size:assets:all"), false)
        assert.deepStrictEqual(
          at((yield* request("GET", "/api/v1/user/quota", { auth: ivan.auth })).body, "groups"),
          [{ rules: [{ limit: 0, subjects: ["size:git:all"] }] }]
        )

        yield* adminCall("POST", "/admin/quota/groups", 201, { name: "own", rules: [{ name: "own-open", limit: -1, subjects: ["size:all"] }] })
        yield* adminCall("POST", "/admin/users/quota-ivan/quota/groups", 204, { groups: ["own"] })
        assert.strictEqual(yield* check(ivan.auth, "/user", "size:git:all"), false)
        yield* adminCall("POST", "/admin/users/quota-ivan/quota/groups", 204, { groups: [] })
        assert.strictEqual(yield* check(ivan.auth, "/user", "size:git:all"), true)
      }))
  })
})
