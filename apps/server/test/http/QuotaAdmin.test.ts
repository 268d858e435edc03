/**
 * Spec 4.6 and Forgejo's rule endpoints end to end (behaviour cases QM-02..QM-18), with the statuses
 * Forgejo's binding statuses: malformed and invalid bodies 422 (issue 16), unknown path names 404.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, at, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const error = (message: string) => ({ message, url: errorUrl })

const names = (body: unknown): ReadonlyArray<unknown> => (body as ReadonlyArray<unknown>).map((item) => at(item, "name"))

layer(TestServer.layer(), { timeout: "120 seconds" })("quota administration", (it) => {
  it.effect("creates, reads, lists, edits and deletes rules (QM-05..QM-08)", () =>
    Effect.gen(function*() {
      const created = yield* request("POST", "/api/v1/admin/quota/rules", {
        auth: admin,
        json: { name: "deny-all", limit: 0, subjects: ["size:all"] }
      })
      assert.strictEqual(created.status, 201)
      assert.strictEqual(created.text, `{"name":"deny-all","limit":0,"subjects":["size:all"]}`)

      // No subjects: the key is left out; an omitted limit is 0.
      const bare = yield* request("POST", "/api/v1/admin/quota/rules", { auth: admin, json: { name: "double-rule" } })
      assert.strictEqual(bare.status, 201)
      assert.deepStrictEqual(bare.body, { name: "double-rule", limit: 0 })
      const again = yield* request("POST", "/api/v1/admin/quota/rules", { auth: admin, json: { name: "double-rule", limit: 0 } })
      assert.strictEqual(again.status, 409)
      assert.deepStrictEqual(again.body, error("rule already exists: [name: double-rule]"))

      // Names longer than Forgejo's 255-character columns are binding errors, and nothing is made.
      const long = "n".repeat(100_000)
      const longRule = yield* request("POST", "/api/v1/admin/quota/rules", { auth: admin, json: { name: long, limit: 0 } })
      assert.deepStrictEqual([longRule.status, longRule.body], [422, error("[Name]: MaxSize")])
      const longGroup = yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: long } })
      assert.deepStrictEqual([longGroup.status, longGroup.body], [422, error("[Name]: MaxSize")])
      const longNested = yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: "g-long", rules: [{ name: long }] } })
      assert.deepStrictEqual([longNested.status, longNested.body], [422, error("[Rules]: MaxSize")])
      assert.strictEqual((yield* request("GET", "/api/v1/admin/quota/groups/g-long", { auth: admin })).status, 404)

      const fetched = yield* request("GET", "/api/v1/admin/quota/rules/deny-all", { auth: admin })
      assert.strictEqual(fetched.status, 200)
      assert.deepStrictEqual(fetched.body, { name: "deny-all", limit: 0, subjects: ["size:all"] })
      const missing = yield* request("GET", "/api/v1/admin/quota/rules/nope", { auth: admin })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, error("rule not found: [name: nope]"))

      const edited = yield* request("PATCH", "/api/v1/admin/quota/rules/deny-all", { auth: admin, json: { limit: 1024 } })
      assert.strictEqual(edited.status, 200)
      assert.deepStrictEqual(edited.body, { name: "deny-all", limit: 1024, subjects: ["size:all"] })
      const nullEdit = yield* request("PATCH", "/api/v1/admin/quota/rules/deny-all", { auth: admin, body: "null" })
      assert.strictEqual(nullEdit.status, 200)
      assert.deepStrictEqual(nullEdit.body, edited.body)
      const subjectsEdit = yield* request("PATCH", "/api/v1/admin/quota/rules/deny-all", {
        auth: admin,
        json: { subjects: ["size:repos:all", "size:git:lfs"], limit: null }
      })
      assert.deepStrictEqual(subjectsEdit.body, { name: "deny-all", limit: 1024, subjects: ["size:repos:all", "size:git:lfs"] })
      const badEdit = yield* request("PATCH", "/api/v1/admin/quota/rules/deny-all", { auth: admin, json: { subjects: ["valid:false"] } })
      assert.strictEqual(badEdit.status, 422)
      assert.deepStrictEqual(badEdit.body, error("unrecognized quota limit subject: [subject: valid:false]"))
      const unknownEdit = yield* request("PATCH", "/api/v1/admin/quota/rules/nope", { auth: admin, body: "{broken" })
      assert.strictEqual(unknownEdit.status, 404)

      const listed = yield* request("GET", "/api/v1/admin/quota/rules", { auth: admin })
      assert.strictEqual(listed.status, 200)
      assert.deepStrictEqual(listed.body, [
        { name: "deny-all", limit: 1024, subjects: ["size:repos:all", "size:git:lfs"] },
        { name: "double-rule", limit: 0 }
      ])
      // Forgejo sends no count here; Kiln counts every list (issue 21, apps/server/PAGING.md).
      assert.strictEqual(listed.headers.get("x-total-count"), "2")

      const deleted = yield* request("DELETE", "/api/v1/admin/quota/rules/double-rule", { auth: admin })
      assert.strictEqual(deleted.status, 204)
      assert.strictEqual(deleted.text, "")
      const deletedAgain = yield* request("DELETE", "/api/v1/admin/quota/rules/double-rule", { auth: admin })
      assert.strictEqual(deletedAgain.status, 404)
      assert.deepStrictEqual(deletedAgain.body, error("rule not found: [name: double-rule]"))
    }))

  it.effect("answers 422 for a body that is not JSON, as for one that fails validation (Forgejo's binding)", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string, string, number, string | RegExp]> = [
        ["POST", "/api/v1/admin/quota/rules", "{not json", 422, "[]: invalid character 'n' looking for beginning of object key string"],
        ["POST", "/api/v1/admin/quota/groups", "[1,", 422, "[]: unexpected EOF"],
        ["POST", "/api/v1/admin/quota/rules", "null", 422, "[Name]: Required"],
        ["POST", "/api/v1/admin/quota/rules", "", 422, "[Name]: Required"],
        ["POST", "/api/v1/admin/quota/rules", `{"limit": 5}`, 422, "[Name]: Required"],
        ["POST", "/api/v1/admin/quota/rules", `{"name": ""}`, 422, "[Name]: Required"],
        ["POST", "/api/v1/admin/quota/rules", `{"name": 5}`, 422, /^\[Name\]: /],
        ["POST", "/api/v1/admin/quota/rules", `{"name": "x", "limit": 1.5}`, 422, /^\[Limit\]: /],
        ["POST", "/api/v1/admin/quota/rules", `{"name": "x", "limit": "big"}`, 422, /^\[Limit\]: /],
        ["POST", "/api/v1/admin/quota/rules", `{"name": "x", "subjects": ["valid:false"]}`, 422,
          "unrecognized quota limit subject: [subject: valid:false]"],
        ["POST", "/api/v1/admin/quota/rules", `{"name": "x", "subjects": ["none"]}`, 422,
          "unrecognized quota limit subject: [subject: none]"],
        ["POST", "/api/v1/admin/quota/rules", `[]`, 422, /^\[\]: /],
        ["POST", "/api/v1/admin/quota/groups", "null", 422, "[Name]: Required"],
        ["POST", "/api/v1/admin/quota/groups", `{"name": "g", "rules": [{"limit": 1}]}`, 422, "[Name]: Required"]
      ]
      for (const [method, path, body, status, message] of cases) {
        const response = yield* request(method, path, { auth: admin, body })
        assert.strictEqual(response.status, status, `${path} ${body}`)
        assert.strictEqual(at(response.body, "url"), errorUrl)
        if (typeof message === "string") assert.strictEqual(at(response.body, "message"), message, body)
        else assert.match(String(at(response.body, "message")), message, body)
      }
      const rules = yield* request("GET", "/api/v1/admin/quota/rules", { auth: admin })
      assert.notInclude(names(rules.body), "x")
    }))

  it.effect("creates a group with its rules, reusing existing rules unchanged (QM-02, QM-09)", () =>
    Effect.gen(function*() {
      yield* request("POST", "/api/v1/admin/quota/rules", { auth: admin, json: { name: "unlimited", limit: -1, subjects: ["size:all"] } })
      yield* request("POST", "/api/v1/admin/quota/rules", { auth: admin, json: { name: "deny-git-lfs", limit: 0, subjects: ["size:git:lfs"] } })
      const created = yield* request("POST", "/api/v1/admin/quota/groups", {
        auth: admin,
        json: {
          name: "group-with-rules",
          rules: [{ name: "unlimited" }, { name: "deny-git-lfs", limit: -1 }, { name: "new-rule", subjects: ["size:assets:all"] }]
        }
      })
      assert.strictEqual(created.status, 201)
      assert.deepStrictEqual(created.body, {
        name: "group-with-rules",
        rules: [
          { name: "deny-git-lfs", limit: 0, subjects: ["size:git:lfs"] },
          { name: "new-rule", limit: 0, subjects: ["size:assets:all"] },
          { name: "unlimited", limit: -1, subjects: ["size:all"] }
        ]
      })
      const unlimited = yield* request("GET", "/api/v1/admin/quota/rules/unlimited", { auth: admin })
      assert.deepStrictEqual(unlimited.body, { name: "unlimited", limit: -1, subjects: ["size:all"] })

      const empty = yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: "empty-group" } })
      assert.strictEqual(empty.status, 201)
      assert.strictEqual(empty.text, `{"name":"empty-group","rules":[]}`)
      const taken = yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: "empty-group" } })
      assert.strictEqual(taken.status, 409)
      assert.deepStrictEqual(taken.body, error("group already exists: [name: empty-group]"))
      const twice = yield* request("POST", "/api/v1/admin/quota/groups", {
        auth: admin,
        json: { name: "twice", rules: [{ name: "unlimited" }, { name: "unlimited" }] }
      })
      assert.strictEqual(twice.status, 409)
      assert.deepStrictEqual(twice.body, error("rule already in group: [group: twice, rule: unlimited]"))

      const fetched = yield* request("GET", "/api/v1/admin/quota/groups/group-with-rules", { auth: admin })
      assert.strictEqual(fetched.status, 200)
      assert.deepStrictEqual(fetched.body, created.body)
      const missing = yield* request("GET", "/api/v1/admin/quota/groups/nope", { auth: admin })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, error("group not found: [group: nope]"))
      const listed = yield* request("GET", "/api/v1/admin/quota/groups", { auth: admin })
      assert.deepStrictEqual(names(listed.body), ["empty-group", "group-with-rules"])
      assert.deepStrictEqual(at(listed.body, 1), created.body)

      // Deleting a group keeps its rules (QM-10).
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/quota/groups/group-with-rules", { auth: admin })).status, 204)
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/quota/groups/group-with-rules", { auth: admin })).status, 404)
      assert.strictEqual((yield* request("GET", "/api/v1/admin/quota/rules/new-rule", { auth: admin })).status, 200)
    }))

  it.effect("creates a group all or nothing: a bad third rule leaves no group and no new rules", () =>
    Effect.gen(function*() {
      const before = yield* request("GET", "/api/v1/admin/quota/rules", { auth: admin })
      const refused = yield* request("POST", "/api/v1/admin/quota/groups", {
        auth: admin,
        json: {
          name: "half-made",
          rules: [
            { name: "half-one", limit: 1, subjects: ["size:all"] },
            { name: "half-two", limit: 2, subjects: ["size:repos:all"] },
            { name: "half-three", limit: 3, subjects: ["size:wiki", "size:bogus"] }
          ]
        }
      })
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(refused.body, error("unrecognized quota limit subject: [subject: size:bogus]"))
      assert.strictEqual((yield* request("GET", "/api/v1/admin/quota/groups/half-made", { auth: admin })).status, 404)
      const after = yield* request("GET", "/api/v1/admin/quota/rules", { auth: admin })
      assert.deepStrictEqual(after.body, before.body)
    }))

  it.effect("adds rules to groups and removes them (QM-11..QM-14)", () =>
    Effect.gen(function*() {
      yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: "rules-group" } })
      yield* request("POST", "/api/v1/admin/quota/rules", { auth: admin, json: { name: "r-deny", limit: 0, subjects: ["size:all"] } })
      yield* request("POST", "/api/v1/admin/quota/rules", { auth: admin, json: { name: "r-other", limit: 5 } })
      const added = yield* request("PUT", "/api/v1/admin/quota/groups/rules-group/rules/r-deny", { auth: admin })
      assert.strictEqual(added.status, 204)
      assert.strictEqual(added.text, "")
      const group = yield* request("GET", "/api/v1/admin/quota/groups/rules-group", { auth: admin })
      assert.deepStrictEqual(group.body, { name: "rules-group", rules: [{ name: "r-deny", limit: 0, subjects: ["size:all"] }] })
      const twice = yield* request("PUT", "/api/v1/admin/quota/groups/rules-group/rules/r-deny", { auth: admin })
      assert.strictEqual(twice.status, 409)
      assert.deepStrictEqual(twice.body, error("rule already in group: [group: rules-group, rule: r-deny]"))
      const unknownGroup = yield* request("PUT", "/api/v1/admin/quota/groups/nope/rules/r-deny", { auth: admin })
      assert.strictEqual(unknownGroup.status, 404)
      assert.deepStrictEqual(unknownGroup.body, error("group not found: [group: nope]"))
      const unknownRule = yield* request("PUT", "/api/v1/admin/quota/groups/rules-group/rules/nope", { auth: admin })
      assert.strictEqual(unknownRule.status, 404)
      assert.deepStrictEqual(unknownRule.body, error("rule not found: [name: nope]"))

      const notIn = yield* request("DELETE", "/api/v1/admin/quota/groups/rules-group/rules/r-other", { auth: admin })
      assert.strictEqual(notIn.status, 404)
      assert.deepStrictEqual(notIn.body, error("rule not in group: [group: rules-group, rule: r-other]"))
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/quota/groups/nope/rules/r-deny", { auth: admin })).status, 404)
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/quota/groups/rules-group/rules/nope", { auth: admin })).status, 404)
      const removed = yield* request("DELETE", "/api/v1/admin/quota/groups/rules-group/rules/r-deny", { auth: admin })
      assert.strictEqual(removed.status, 204)
      assert.deepStrictEqual((yield* request("GET", "/api/v1/admin/quota/groups/rules-group", { auth: admin })).body, {
        name: "rules-group",
        rules: []
      })

      // Deleting a rule takes it out of every group (QM-06).
      yield* request("PUT", "/api/v1/admin/quota/groups/rules-group/rules/r-other", { auth: admin })
      yield* request("DELETE", "/api/v1/admin/quota/rules/r-other", { auth: admin })
      assert.deepStrictEqual(at((yield* request("GET", "/api/v1/admin/quota/groups/rules-group", { auth: admin })).body, "rules"), [])
    }))

  it.effect("adds users to groups, lists and removes them (QM-15..QM-17)", () =>
    Effect.gen(function*() {
      const carol = yield* createUser("carol")
      yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: "members" } })
      const added = yield* request("PUT", "/api/v1/admin/quota/groups/members/users/carol", { auth: admin })
      assert.strictEqual(added.status, 204)
      const twice = yield* request("PUT", "/api/v1/admin/quota/groups/members/users/carol", { auth: admin })
      assert.strictEqual(twice.status, 409)
      assert.deepStrictEqual(twice.body, error(`user already in group: [group: members, userID: ${String(at(carol.user, "id"))}]`))
      const unknownUser = yield* request("PUT", "/api/v1/admin/quota/groups/members/users/nobody", { auth: admin })
      assert.strictEqual(unknownUser.status, 404)
      assert.deepStrictEqual(unknownUser.body, error("user does not exist [uid: 0, name: nobody]"))
      assert.strictEqual((yield* request("PUT", "/api/v1/admin/quota/groups/nope/users/carol", { auth: admin })).status, 404)

      const listed = yield* request("GET", "/api/v1/admin/quota/groups/members/users", { auth: admin })
      assert.strictEqual(listed.status, 200)
      assert.deepStrictEqual((listed.body as ReadonlyArray<unknown>).map((user) => at(user, "login")), ["carol"])
      assert.strictEqual(at(listed.body, 0, "email"), "carol@example.com")
      assert.strictEqual((yield* request("GET", "/api/v1/admin/quota/groups/nope/users", { auth: admin })).status, 404)

      const removed = yield* request("DELETE", "/api/v1/admin/quota/groups/members/users/carol", { auth: admin })
      assert.strictEqual(removed.status, 204)
      const notIn = yield* request("DELETE", "/api/v1/admin/quota/groups/members/users/carol", { auth: admin })
      assert.strictEqual(notIn.status, 404)
      assert.deepStrictEqual(notIn.body, error(`user not in group: [group: members, userID: ${String(at(carol.user, "id"))}]`))
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/quota/groups/members/users/nobody", { auth: admin })).status, 404)
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/quota/groups/nope/users/carol", { auth: admin })).status, 404)
    }))

  it.effect("of two concurrent assignments of one user to a group, one is 204 and the other 409", () =>
    Effect.gen(function*() {
      yield* createUser("dave")
      yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: "race" } })
      const statuses = yield* Effect.all(
        [1, 2, 3, 4].map(() => request("PUT", "/api/v1/admin/quota/groups/race/users/dave", { auth: admin })),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(statuses.map((response) => response.status).sort(), [204, 409, 409, 409])
      const listed = yield* request("GET", "/api/v1/admin/quota/groups/race/users", { auth: admin })
      assert.strictEqual((listed.body as ReadonlyArray<unknown>).length, 1)
    }))

  it.effect("replaces a user's groups, all or nothing (QM-18), and shows an account's quota with names", () =>
    Effect.gen(function*() {
      yield* createUser("erin")
      for (const name of ["set-a", "set-b", "set-c"]) {
        yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name, rules: [{ name: `${name}-rule`, limit: 10, subjects: ["size:all"] }] } })
      }
      const groupsOf = Effect.map(
        request("GET", "/api/v1/admin/users/erin/quota", { auth: admin }),
        (response) => names(at(response.body, "groups"))
      )
      const set = yield* request("POST", "/api/v1/admin/users/erin/quota/groups", { auth: admin, json: { groups: ["set-b", "set-a", "set-b"] } })
      assert.strictEqual(set.status, 204)
      assert.deepStrictEqual(yield* groupsOf, ["set-a", "set-b"])

      const unknown = yield* request("POST", "/api/v1/admin/users/erin/quota/groups", { auth: admin, json: { groups: ["set-c", "missing"] } })
      assert.strictEqual(unknown.status, 422)
      assert.deepStrictEqual(unknown.body, error("group not found: [group: missing]"))
      assert.deepStrictEqual(yield* groupsOf, ["set-a", "set-b"])

      // Without a list nothing changes (Forgejo), and the answer is still 204.
      for (const body of ["null", "{}", `{"groups": null}`]) {
        const response = yield* request("POST", "/api/v1/admin/users/erin/quota/groups", { auth: admin, body })
        assert.strictEqual(response.status, 204, body)
      }
      assert.deepStrictEqual(yield* groupsOf, ["set-a", "set-b"])
      assert.strictEqual(
        (yield* request("POST", "/api/v1/admin/users/erin/quota/groups", { auth: admin, body: "{groups" })).status,
        422
      )
      const unknownUser = yield* request("POST", "/api/v1/admin/users/nobody/quota/groups", { auth: admin, json: { groups: [] } })
      assert.strictEqual(unknownUser.status, 404)
      assert.deepStrictEqual(unknownUser.body, error("user does not exist [uid: 0, name: nobody]"))

      yield* request("POST", "/api/v1/admin/users/erin/quota/groups", { auth: admin, json: { groups: ["set-c"] } })
      const info = yield* request("GET", "/api/v1/admin/users/erin/quota", { auth: admin })
      assert.strictEqual(info.status, 200)
      assert.deepStrictEqual(info.body, {
        used: {
          size: {
            repos: { public: 0, private: 0 },
            git: { LFS: 0 },
            assets: { attachments: { issues: 0, releases: 0 }, artifacts: 0, packages: { all: 0 } }
          }
        },
        groups: [{ name: "set-c", rules: [{ name: "set-c-rule", limit: 10, subjects: ["size:all"] }] }]
      })
      const cleared = yield* request("POST", "/api/v1/admin/users/erin/quota/groups", { auth: admin, json: { groups: [] } })
      assert.strictEqual(cleared.status, 204)
      assert.deepStrictEqual(yield* groupsOf, [])
      assert.strictEqual((yield* request("GET", "/api/v1/admin/users/nobody/quota", { auth: admin })).status, 404)
    }))

  it.effect("refuses anonymous callers (401), non-admins (403) and tokens without the admin scope, before the body", () =>
    Effect.gen(function*() {
      const frank = yield* createUser("frank")
      const anonymous = yield* request("POST", "/api/v1/admin/quota/rules", { body: "{not json" })
      assert.strictEqual(anonymous.status, 401)
      assert.deepStrictEqual(anonymous.body, error("token is required"))
      for (const [method, path] of [
        ["GET", "/api/v1/admin/quota/rules"],
        ["POST", "/api/v1/admin/quota/groups"],
        ["PUT", "/api/v1/admin/quota/groups/g/users/frank"],
        ["GET", "/api/v1/admin/users/frank/quota"]
      ] as const) {
        const forbidden = yield* request(method, path, { auth: frank.auth, ...(method === "GET" ? {} : { body: "{not json" }) })
        assert.strictEqual(forbidden.status, 403, path)
        assert.deepStrictEqual(forbidden.body, error("user should be the site admin"))
      }
      const readOnly = yield* createToken(admin, "root", "quota-read-user", ["read:user"])
      const scoped = yield* request("GET", "/api/v1/admin/quota/groups", { auth: { token: readOnly } })
      assert.strictEqual(scoped.status, 403)
      assert.deepStrictEqual(scoped.body, error("token does not have at least one of required scope(s): [read:admin]"))
      const adminToken = yield* createToken(admin, "root", "quota-read-admin", ["read:admin"])
      assert.strictEqual((yield* request("GET", "/api/v1/admin/quota/groups", { auth: { token: adminToken } })).status, 200)
      const writeRefused = yield* request("POST", "/api/v1/admin/quota/rules", { auth: { token: adminToken }, json: { name: "t" } })
      assert.strictEqual(writeRefused.status, 403)
    }))
})
