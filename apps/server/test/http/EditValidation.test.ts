/**
 * Review finding 20: a repository's `default_branch` is a ref name even while the repository is
 * empty; a repository's `website` and a commit status's `target_url` pass Forgejo's `ValidUrl`
 * rule (422 `[Field]: Url`), so no `javascript:` link reaches clients; an administrator's edit of
 * a user changes everything or nothing; the last site administrator stays one even when two
 * demotions race.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, at, basic, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const invalid = (message: string) => ({ message, url: errorUrl })

layer(TestServer.layer(), { timeout: "180 seconds" })("edits validated", (it) => {
  it.effect("refuses a default branch that is no ref name on an empty repository", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("brancher")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "empty" } })
      for (const name of ["bad..name", "with space", "x".repeat(101), "a/.hidden"]) {
        const response = yield* request("PATCH", "/api/v1/repos/brancher/empty", { auth: owner.auth, json: { default_branch: name } })
        assert.strictEqual(response.status, 422, name)
        assert.include(String(at(response.body, "message")), "[DefaultBranch]: ", name)
      }
      const unchanged = yield* request("GET", "/api/v1/repos/brancher/empty", { auth: owner.auth })
      assert.strictEqual(at(unchanged.body, "default_branch"), "main")
      const edited = yield* request("PATCH", "/api/v1/repos/brancher/empty", { auth: owner.auth, json: { default_branch: "develop" } })
      assert.strictEqual(at(edited.body, "default_branch"), "develop")
      const blank = yield* request("PATCH", "/api/v1/repos/brancher/empty", { auth: owner.auth, json: { default_branch: "" } })
      assert.strictEqual(at(blank.body, "default_branch"), "develop")
    }))

  it.effect("refuses website and target_url links that are not http(s) URLs", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("linker")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "site", auto_init: true } })
      for (const url of ["javascript:alert(1)", "data:text/html,<script>x</script>", "https://host:port/", "vbscript:msgbox", "not a url"]) {
        const website = yield* request("PATCH", "/api/v1/repos/linker/site", { auth: owner.auth, json: { website: url } })
        assert.deepStrictEqual([website.status, website.body], [422, invalid("[Website]: Url")], url)
        const status = yield* request("POST", "/api/v1/repos/linker/site/statuses/main", {
          auth: owner.auth,
          json: { state: "success", target_url: url }
        })
        assert.deepStrictEqual([status.status, status.body], [422, invalid("[TargetURL]: Url")], url)
      }
      assert.strictEqual(at((yield* request("GET", "/api/v1/repos/linker/site")).body, "website"), "")
      assert.deepStrictEqual((yield* request("GET", "/api/v1/repos/linker/site/statuses/main")).body, [])

      const website = yield* request("PATCH", "/api/v1/repos/linker/site", { auth: owner.auth, json: { website: "https://example.com/docs" } })
      assert.strictEqual(at(website.body, "website"), "https://example.com/docs")
      const status = yield* request("POST", "/api/v1/repos/linker/site/statuses/main", {
        auth: owner.auth,
        json: { state: "success", target_url: "https://ci.example.com/build/1" }
      })
      assert.strictEqual(status.status, 201, status.text)
      const empty = yield* request("POST", "/api/v1/repos/linker/site/statuses/main", { auth: owner.auth, json: { state: "pending" } })
      assert.strictEqual(empty.status, 201, empty.text)
    }))

  it.effect("binds an administrator's edit of a user by Forgejo's MaxSize rules, in the order of its fields", () =>
    Effect.gen(function*() {
      yield* createUser("lengthy")
      const edit = (json: Record<string, unknown>) =>
        request("PATCH", "/api/v1/admin/users/lengthy", { auth: admin, json: { login_name: "lengthy", source_id: 0, ...json } })
      // Characters, not bytes: 100 two-byte characters are within full_name's 100.
      const within = { full_name: "é".repeat(100), location: "l".repeat(50), pronouns: "p".repeat(50), description: "d".repeat(255) }
      const accepted = yield* edit(within)
      assert.strictEqual(accepted.status, 200, accepted.text)
      const longWebsite = `https://example.com/${"w".repeat(236)}`
      for (const [json, field] of [
        [{ email: `${"e".repeat(250)}@x.io` }, "Email"],
        [{ full_name: "f".repeat(101) }, "FullName"],
        [{ password: "p".repeat(256) }, "Password"],
        [{ website: longWebsite }, "Website"],
        [{ location: "l".repeat(51) }, "Location"],
        [{ pronouns: "p".repeat(51) }, "Pronouns"],
        [{ description: "d".repeat(256) }, "Description"],
        [{ full_name: "f".repeat(101), description: "d".repeat(256) }, "FullName"]
      ] as const) {
        const refused = yield* edit(json)
        assert.deepStrictEqual([refused.status, refused.body], [422, invalid(`[${field}]: MaxSize`)], JSON.stringify(json).slice(0, 60))
      }
      const user = yield* request("GET", "/api/v1/users/lengthy", { auth: admin })
      assert.deepStrictEqual(
        [at(user.body, "full_name"), at(user.body, "location"), at(user.body, "pronouns"), at(user.body, "description")],
        [within.full_name, within.location, within.pronouns, within.description]
      )
    }))

  it.effect("changes nothing of a user when a later check fails", () =>
    Effect.gen(function*() {
      // root is the only administrator: demoting it fails after the password was accepted.
      const refused = yield* request("PATCH", "/api/v1/admin/users/root", {
        auth: admin,
        json: { login_name: "root", source_id: 0, password: "replaced-password", full_name: "Changed", admin: false }
      })
      assert.deepStrictEqual([refused.status, refused.body], [400, { message: "cannot remove the last admin", url: errorUrl }])
      assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: basic("root", "replaced-password") })).status, 401)
      const self = yield* request("GET", "/api/v1/user", { auth: admin })
      assert.strictEqual(self.status, 200)
      assert.strictEqual(at(self.body, "full_name"), "")
      assert.strictEqual(at(self.body, "is_admin"), true)
    }))

  // The race shows on a PostgreSQL server (KILN_TEST_DATABASE_URL): without the locked count both
  // demotions succeed within a few rounds. The embedded database runs one statement at a time.
  it.effect("keeps one administrator when two demotions race", () =>
    Effect.gen(function*() {
      const second = yield* createUser("second-admin", { admin: true })
      const promote = yield* request("PATCH", "/api/v1/admin/users/second-admin", {
        auth: admin,
        json: { login_name: "second-admin", source_id: 0, admin: true }
      })
      assert.strictEqual(promote.status, 200, promote.text)
      const demote = (name: string) =>
        request("PATCH", `/api/v1/admin/users/${name}`, { auth: second.auth, json: { login_name: name, source_id: 0, admin: false } })
      for (let round = 0; round < 6; round++) {
        const [a, b] = yield* Effect.all([demote("root"), demote("second-admin")], { concurrency: "unbounded" })
        const left: Array<string> = []
        for (const [name, auth] of [["root", admin], ["second-admin", second.auth]] as const) {
          const self = yield* request("GET", "/api/v1/user", { auth })
          if (at(self.body, "is_admin") === true) left.push(name)
        }
        assert.strictEqual(left.length, 1, `round ${round}: ${a.status} ${b.status} left ${JSON.stringify(left)}`)
        assert.deepStrictEqual([a.status, b.status].sort(), [200, 400])
        // Whoever is left promotes the other again (through the store, not the cached sign-in).
        const keeper = left[0] === "root" ? admin : second.auth
        const other = left[0] === "root" ? "second-admin" : "root"
        const again = yield* request("PATCH", `/api/v1/admin/users/${other}`, { auth: keeper, json: { login_name: other, source_id: 0, admin: true } })
        assert.strictEqual(again.status, 200, again.text)
      }
    }))
})
