/**
 * Issue 27 item 4: answers that differed from Forgejo's, and the fields Forgejo v15 added to the
 * objects Kiln serves (Repository's wiki fields, AccessToken's `created_at` and `repositories`,
 * PublicKey's `updated_at`, Organization's `created`). The mirror's `mirror_interval` is pinned in
 * Migration.test.ts, the team member's 403 in TeamRepos.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

layer(TestServer.layer(), { timeout: "180 seconds" })("Forgejo's answers", (it) => {
  it.effect("POST /admin/users without login_name keeps none (Forgejo answers login_name \"\")", () =>
    Effect.gen(function*() {
      const created = yield* request("POST", "/api/v1/admin/users", {
        auth: admin,
        json: { username: "nologin", email: "nologin@example.com", password: "nologin-password", must_change_password: false }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual(at(created.body, "login_name"), "")
      assert.strictEqual(at((yield* request("GET", "/api/v1/user", { auth: TestServer.basic("nologin", "nologin-password") })).body, "login_name"), "")
      const named = yield* request("POST", "/api/v1/admin/users", {
        auth: admin,
        json: { username: "named", login_name: "n-login", email: "named@example.com", password: "named-password" }
      })
      assert.strictEqual(at(named.body, "login_name"), "n-login")
    }))

  it.effect("a footnote reference right after `!` takes the `!` (Forgejo's footnote parser starts at it)", () =>
    Effect.gen(function*() {
      const rendered = yield* request("POST", "/api/v1/markdown", { auth: admin, json: { Text: "Citation needed![^1]\n\n[^1]: Source", Mode: "comment" } })
      assert.strictEqual(rendered.status, 200)
      assert.include(rendered.text, "<p>Citation needed<sup id=\"fnref:user-content-1\">")
      const undefinedLabel = yield* request("POST", "/api/v1/markdown", { auth: admin, json: { Text: "Citation needed![^1]", Mode: "comment" } })
      assert.include(undefinedLabel.text, "Citation needed![^1]")
      const escaped = yield* request("POST", "/api/v1/markdown", { auth: admin, json: { Text: "Citation needed\\![^1]\n\n[^1]: Source", Mode: "comment" } })
      assert.include(escaped.text, "Citation needed!<sup")
    }))

  it.effect("Forgejo v15's fields: Repository wiki fields, AccessToken created_at and repositories, PublicKey updated_at, Organization created", () =>
    Effect.gen(function*() {
      const user = yield* createUser("fifteen")
      const repo = yield* request("POST", "/api/v1/user/repos", { auth: user.auth, json: { name: "r" } })
      assert.strictEqual(repo.status, 201, repo.text)
      const fetched = yield* request("GET", "/api/v1/repos/fifteen/r", { auth: user.auth })
      for (const body of [repo.body, fetched.body]) {
        assert.strictEqual(at(body, "has_wiki_contents"), false)
        assert.strictEqual(at(body, "wiki_clone_url"), `${ROOT_URL}fifteen/r.wiki.git`)
        assert.strictEqual(at(body, "wiki_ssh_url"), "git@kiln.test:fifteen/r.wiki.git")
      }
      // Sent whatever the wiki unit (no omitempty).
      yield* request("PATCH", "/api/v1/repos/fifteen/r", { auth: user.auth, json: { has_wiki: false } })
      const noWiki = yield* request("GET", "/api/v1/repos/fifteen/r", { auth: user.auth })
      assert.deepStrictEqual([at(noWiki.body, "has_wiki"), at(noWiki.body, "wiki_clone_url")], [false, `${ROOT_URL}fifteen/r.wiki.git`])

      const token = yield* request("POST", "/api/v1/users/fifteen/tokens", { auth: user.auth, json: { name: "t", scopes: ["all"] } })
      assert.strictEqual(token.status, 201, token.text)
      assert.isTrue(token.text.includes("\"repositories\":null"))
      assert.match(String(at(token.body, "created_at")), RFC3339)
      const listed = yield* request("GET", "/api/v1/users/fifteen/tokens", { auth: user.auth })
      assert.deepStrictEqual([at(listed.body, 0, "created_at"), at(listed.body, 0, "repositories")], [at(token.body, "created_at"), null])

      const key = yield* request("POST", "/api/v1/admin/users/fifteen/keys", {
        auth: admin,
        json: { title: "k", key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl o@k" }
      })
      assert.strictEqual(key.status, 201, key.text)
      assert.match(String(at(key.body, "updated_at")), RFC3339)
      assert.strictEqual(at(key.body, "updated_at"), at(key.body, "created_at"))
      assert.strictEqual(at((yield* request("GET", "/api/v1/users/fifteen/keys")).body, 0, "updated_at"), at(key.body, "created_at"))

      const org = yield* request("POST", "/api/v1/orgs", { auth: user.auth, json: { username: "fifteen-org" } })
      assert.strictEqual(org.status, 201, org.text)
      assert.match(String(at(org.body, "created")), RFC3339)
      assert.strictEqual(at((yield* request("GET", "/api/v1/orgs/fifteen-org")).body, "created"), at(org.body, "created"))
    }))
})
