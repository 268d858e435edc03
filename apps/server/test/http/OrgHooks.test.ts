import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addToTeam, createOrg, createTeam } from "../support/OrgFixtures.ts"
import { admin, at, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const notFound = { message: "The target couldn't be found.", url: errorUrl, errors: [] }
const plain = (message: string) => ({ message, url: errorUrl })
const config = { url: "https://hooks.example/receive", content_type: "json", secret: "s3cr3t-value" }

layer(TestServer.layer(), { timeout: "120 seconds" })("organization webhooks", (it) => {
  it.effect("creates a hook and renders Forgejo's Hook JSON without the secret", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("h-owner")
      yield* createOrg(owner.auth, "h-org")
      // Forgejo's documentation writes the route with a trailing slash.
      const created = yield* request("POST", "/api/v1/orgs/h-org/hooks/", { auth: owner.auth, json: { type: "forgejo", config } })
      assert.strictEqual(created.status, 201)
      assert.notInclude(created.text, "s3cr3t-value")
      const id = at(created.body, "id")
      const stamp = at(created.body, "created_at")
      assert.match(String(stamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      assert.deepStrictEqual(created.body, {
        id,
        type: "forgejo",
        branch_filter: "",
        url: "https://hooks.example/receive",
        config: { content_type: "json", url: "https://hooks.example/receive" },
        events: ["push"],
        authorization_header: "",
        content_type: "json",
        metadata: null,
        active: false,
        updated_at: stamp,
        created_at: stamp
      })
      assert.deepStrictEqual(Object.keys(created.body as object), [
        "id", "type", "branch_filter", "url", "config", "events", "authorization_header", "content_type", "metadata",
        "active", "updated_at", "created_at"
      ])
      assert.deepStrictEqual(Object.keys(at(created.body, "config") as object), ["content_type", "url"])

      const fetched = yield* request("GET", `/api/v1/orgs/h-org/hooks/${String(id)}/`, { auth: owner.auth })
      assert.deepStrictEqual([fetched.status, fetched.body], [200, created.body])
      const list = yield* request("GET", "/api/v1/orgs/H-ORG/hooks", { auth: owner.auth })
      assert.deepStrictEqual([list.status, list.body, list.headers.get("x-total-count")], [200, [created.body], "1"])
      assert.notInclude(list.text, "s3cr3t-value")
    }))

  it.effect("expands issue and pull-request events and keeps a Slack hook's settings", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("e-owner")
      yield* createOrg(owner.auth, "e-org")
      const expanded = yield* request("POST", "/api/v1/orgs/e-org/hooks", {
        auth: owner.auth,
        json: {
          type: "gitea",
          config: { ...config, content_type: "form" },
          events: ["Issues", "pull_request_only", "create", "unknown-event"],
          branch_filter: "{main,release/*}",
          authorization_header: "Bearer abc",
          active: true
        }
      })
      assert.strictEqual(expanded.status, 201)
      assert.deepStrictEqual(at(expanded.body, "events"), [
        "create", "issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment", "pull_request"
      ])
      assert.strictEqual(at(expanded.body, "branch_filter"), "{main,release/*}")
      assert.strictEqual(at(expanded.body, "authorization_header"), "Bearer abc")
      assert.strictEqual(at(expanded.body, "content_type"), "form")
      assert.strictEqual(at(expanded.body, "active"), true)

      const slack = yield* request("POST", "/api/v1/orgs/e-org/hooks", {
        auth: owner.auth,
        json: { type: "slack", config: { ...config, channel: "#dev", username: "kiln", color: "good" } }
      })
      assert.strictEqual(slack.status, 201)
      assert.deepStrictEqual(at(slack.body, "config"), {
        channel: "#dev", color: "good", content_type: "json", icon_url: "", url: "https://hooks.example/receive", username: "kiln"
      })
      assert.deepStrictEqual(at(slack.body, "metadata"), { channel: "#dev", username: "kiln", icon_url: "", color: "good" })
    }))

  it.effect("validates what Forgejo validates", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("v-owner")
      yield* createOrg(owner.auth, "v-org")
      const cases: ReadonlyArray<readonly [unknown, number, string]> = [
        [{ config }, 422, "[Type]: Required"],
        [{ type: "", config }, 422, "[Type]: Required"],
        [{ type: "forgejo" }, 422, "[Config]: Required"],
        [{ type: "forgejo", config, branch_filter: "[" }, 422, "[BranchFilter]: unexpected end of input"],
        [{ type: "nope", config }, 422, "Invalid hook type: nope"],
        [{ type: "forgejo", config: { content_type: "json" } }, 422, "Missing config option: url"],
        [{ type: "forgejo", config: { url: config.url } }, 422, "Missing config option: content_type"],
        [{ type: "forgejo", config: { ...config, content_type: "xml" } }, 422, "Invalid content type"],
        [{ type: "forgejo", config: { ...config, url: "ftp://hooks.example/x" } }, 422, "Invalid url"],
        [{ type: "forgejo", config: { ...config, url: "/relative" } }, 422, "Invalid url"],
        [{ type: "slack", config }, 422, "Missing config option: channel"],
        [{ type: "slack", config: { ...config, channel: "#Not Valid" } }, 400, "Invalid slack channel name"],
        [{ type: "forgejo", config, active: "yes" }, 422, "[Active]: Invalid type"],
        [{ type: "forgejo", config, events: "push" }, 422, "[Events]: Invalid type"],
        // Kiln's: a value no HTTP client can send (it took the server down at delivery, finding 22).
        [{ type: "forgejo", config, authorization_header: "Bearer a\r\nX-Injected: 1" }, 422, "Invalid authorization header"],
        [{ type: "forgejo", config, authorization_header: "Bearer \u007f" }, 422, "Invalid authorization header"],
        // Kiln's: matching costs filter × branch name, so the filter is bounded.
        [{ type: "forgejo", config, branch_filter: "*a".repeat(129) }, 422, "[BranchFilter]: pattern is longer than 256 characters"]
      ]
      for (const [json, status, message] of cases) {
        const response = yield* request("POST", "/api/v1/orgs/v-org/hooks", { auth: owner.auth, json })
        assert.deepStrictEqual([response.status, response.body], [status, plain(message)], JSON.stringify(json))
      }
      // A form body cannot carry the config map.
      const form = yield* request("POST", "/api/v1/orgs/v-org/hooks", { auth: owner.auth, form: { type: "forgejo" } })
      assert.deepStrictEqual([form.status, form.body], [422, plain("[Config]: Required")])
      assert.deepStrictEqual((yield* request("GET", "/api/v1/orgs/v-org/hooks", { auth: owner.auth })).body, [])
      // An edit is checked the same way, and leaves the hook as it was.
      const hook = yield* request("POST", "/api/v1/orgs/v-org/hooks", { auth: owner.auth, json: { type: "forgejo", config, authorization_header: "Bearer ok" } })
      assert.strictEqual(hook.status, 201, hook.text)
      const path = `/api/v1/orgs/v-org/hooks/${Number(at(hook.body, "id"))}`
      const edit = yield* request("PATCH", path, { auth: owner.auth, json: { authorization_header: "Bearer \nX: y" } })
      assert.deepStrictEqual([edit.status, edit.body], [422, plain("Invalid authorization header")])
      assert.strictEqual(at((yield* request("GET", path, { auth: owner.auth })).body, "authorization_header"), "Bearer ok")
    }))

  it.effect("edits with Forgejo's semantics: events reset, filter and header overwritten, secret kept hidden", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("p-owner")
      yield* createOrg(owner.auth, "p-org")
      const created = yield* request("POST", "/api/v1/orgs/p-org/hooks", {
        auth: owner.auth,
        json: { type: "forgejo", config, events: ["create", "delete"], branch_filter: "main", authorization_header: "token x", active: true }
      })
      const path = `/api/v1/orgs/p-org/hooks/${String(at(created.body, "id"))}`

      const edited = yield* request("PATCH", path, { auth: owner.auth, json: { config: { url: "http://other.example/hook" } } })
      assert.strictEqual(edited.status, 200)
      assert.strictEqual(at(edited.body, "url"), "http://other.example/hook")
      assert.strictEqual(at(edited.body, "content_type"), "json")
      assert.deepStrictEqual(at(edited.body, "events"), ["push"])
      assert.strictEqual(at(edited.body, "branch_filter"), "")
      assert.strictEqual(at(edited.body, "authorization_header"), "")
      assert.strictEqual(at(edited.body, "active"), true)
      assert.strictEqual(at(edited.body, "created_at"), at(created.body, "created_at"))

      const again = yield* request("PATCH", path, {
        auth: owner.auth,
        json: { events: ["release"], branch_filter: "release/*", active: false, config: { content_type: "form", secret: "new-secret" } }
      })
      assert.deepStrictEqual(at(again.body, "events"), ["release"])
      assert.strictEqual(at(again.body, "branch_filter"), "release/*")
      assert.strictEqual(at(again.body, "active"), false)
      assert.strictEqual(at(again.body, "content_type"), "form")
      assert.notInclude(again.text, "secret")

      const badUrl = yield* request("PATCH", path, { auth: owner.auth, json: { config: { url: "nope" } } })
      assert.deepStrictEqual([badUrl.status, badUrl.body], [422, plain("Invalid url")])
      const badType = yield* request("PATCH", path, { auth: owner.auth, json: { config: { content_type: "xml" } } })
      assert.deepStrictEqual(badType.body, plain("Invalid content type"))
      const badFilter = yield* request("PATCH", path, { auth: owner.auth, json: { branch_filter: "[" } })
      assert.deepStrictEqual(badFilter.body, plain("[BranchFilter]: unexpected end of input"))
      assert.deepStrictEqual((yield* request("GET", path, { auth: owner.auth })).body, again.body)
    }))

  it.effect("finds hooks only in their own organization and deletes them", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("x-owner")
      yield* createOrg(owner.auth, "x-one")
      yield* createOrg(owner.auth, "x-two")
      const created = yield* request("POST", "/api/v1/orgs/x-one/hooks", { auth: owner.auth, json: { type: "forgejo", config } })
      const id = String(at(created.body, "id"))
      for (const [method, json] of [["GET", undefined], ["PATCH", {}], ["DELETE", undefined]] as const) {
        const elsewhere = yield* request(method, `/api/v1/orgs/x-two/hooks/${id}`, { auth: owner.auth, json })
        assert.deepStrictEqual([elsewhere.status, elsewhere.body], [404, notFound], method)
      }
      assert.deepStrictEqual((yield* request("GET", "/api/v1/orgs/x-one/hooks/999999", { auth: owner.auth })).body, notFound)
      assert.deepStrictEqual((yield* request("GET", "/api/v1/orgs/x-one/hooks/abc", { auth: owner.auth })).body, notFound)
      const deleted = yield* request("DELETE", `/api/v1/orgs/x-one/hooks/${id}`, { auth: owner.auth })
      assert.deepStrictEqual([deleted.status, deleted.text], [204, ""])
      assert.strictEqual((yield* request("GET", `/api/v1/orgs/x-one/hooks/${id}`, { auth: owner.auth })).status, 404)
      assert.deepStrictEqual((yield* request("DELETE", `/api/v1/orgs/x-one/hooks/${id}`, { auth: owner.auth })).body, notFound)
    }))

  it.effect("is for organization owners and site admins only", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("g-owner")
      const member = yield* createUser("g-member")
      const outsider = yield* createUser("g-outsider")
      yield* createOrg(owner.auth, "g-org")
      const team = yield* createTeam(owner.auth, "g-org", { name: "admins", permission: "admin" })
      yield* addToTeam(owner.auth, team, "g-member")
      const created = yield* request("POST", "/api/v1/orgs/g-org/hooks", { auth: owner.auth, json: { type: "forgejo", config } })
      const path = `/api/v1/orgs/g-org/hooks/${String(at(created.body, "id"))}`
      const routes: ReadonlyArray<readonly [string, string, unknown]> = [
        ["GET", "/api/v1/orgs/g-org/hooks", undefined],
        // The gate runs before the body is read.
        ["POST", "/api/v1/orgs/g-org/hooks", { type: "nope" }],
        ["GET", path, undefined],
        ["PATCH", path, {}],
        ["DELETE", path, undefined]
      ]
      for (const [method, route, json] of routes) {
        // An admin team does not make an organization owner.
        for (const auth of [member.auth, outsider.auth]) {
          const refused = yield* request(method, route, { auth, json })
          assert.deepStrictEqual([refused.status, refused.body], [403, plain("Must be an organization owner")], `${method} ${route}`)
        }
        const anonymous = yield* request(method, route, { json })
        assert.deepStrictEqual([anonymous.status, anonymous.body], [401, plain("token is required")], `${method} ${route}`)
      }
      assert.strictEqual((yield* request("GET", "/api/v1/orgs/g-org/hooks", { auth: admin })).status, 200)
      const token = yield* createToken(owner.auth, "g-owner", "read-org", ["read:organization"])
      assert.strictEqual((yield* request("GET", path, { auth: { token } })).status, 200)
      assert.deepStrictEqual(
        (yield* request("DELETE", path, { auth: { token } })).body,
        plain("token does not have at least one of required scope(s): [write:organization]")
      )
      assert.strictEqual((yield* request("DELETE", path, { auth: admin })).status, 204)
    }))
})
