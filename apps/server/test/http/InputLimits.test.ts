/**
 * Issue 27 item 3, no 5xx for any input: the fields a schema-driven fuzzer answered 500 for (a key's
 * title, a token's name, a branch's `old_ref_name` and `old_branch_name`, a status's context, an
 * attachment's name, a tag name of valid components but no valid length). Each answers 422 past its
 * limit, or is stored whatever its length where Forgejo has none, and nothing reaches the database
 * or git before the check.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { admin, at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl o@k"

/** Printable ASCII that does not compress: what an index cannot hold past ~2.7 kB. */
const incompressible = (length: number) =>
  [...randomBytes(length)].map((byte) => String.fromCharCode(0x21 + (byte % 94))).join("")

const validation = (message: string) => ({ message, url: errorUrl })

layer(TestServer.layer(), { timeout: "180 seconds" })("input past its limits", (it) => {
  it.effect("a token's name: 422 [Name]: MaxSize past 255 characters, [Name]: Required when empty; nothing issued", () =>
    Effect.gen(function*() {
      const user = yield* createUser("tokens")
      const issue = (name: string) => request("POST", "/api/v1/users/tokens/tokens", { auth: user.auth, json: { name, scopes: ["all"] } })
      for (const name of ["x".repeat(256), "é".repeat(256), incompressible(20_000), "x".repeat(500_000)]) {
        const refused = yield* issue(name)
        assert.deepStrictEqual([refused.status, refused.body], [422, validation("[Name]: MaxSize")])
      }
      const empty = yield* issue("")
      assert.deepStrictEqual([empty.status, empty.body], [422, validation("[Name]: Required")])
      assert.deepStrictEqual((yield* request("GET", "/api/v1/users/tokens/tokens", { auth: user.auth })).body, [])
      const widest = yield* issue("é".repeat(255))
      assert.strictEqual(widest.status, 201, widest.text)
    }))

  it.effect("a key's title: 422 [Title]: MaxSize past 255 characters; nothing added", () =>
    Effect.gen(function*() {
      yield* createUser("keys")
      for (const title of ["x".repeat(256), incompressible(20_000), "x".repeat(500_000)]) {
        const refused = yield* request("POST", "/api/v1/admin/users/keys/keys", { auth: admin, json: { title, key: KEY } })
        assert.deepStrictEqual([refused.status, refused.body], [422, validation("[Title]: MaxSize")])
      }
      assert.deepStrictEqual((yield* request("GET", "/api/v1/users/keys/keys")).body, [])
      const added = yield* request("POST", "/api/v1/admin/users/keys/keys", { auth: admin, json: { title: "t".repeat(255), key: KEY } })
      assert.strictEqual(added.status, 201, added.text)
    }))

  it.effect("a branch's old_ref_name and old_branch_name: GitRefName and MaxSize(100) bound, an unknown source 404; no branch made", () =>
    Effect.gen(function*() {
      const user = yield* createUser("brancher")
      yield* request("POST", "/api/v1/user/repos", { auth: user.auth, json: { name: "r", auto_init: true, default_branch: "main" } })
      const create = (json: Record<string, unknown>) =>
        request("POST", "/api/v1/repos/brancher/r/branches", { auth: user.auth, json: { new_branch_name: "b", ...json } })
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ old_ref_name: "a\"b[c]" }, "[OldRefName]: GitRefName"],
        [{ old_ref_name: "x".repeat(1 << 19) }, "[OldRefName]: GitRefName"],
        [{ old_ref_name: "a..b" }, "[OldRefName]: GitRefName"],
        [{ old_ref_name: "ab/".repeat(40) + "a" }, "[OldRefName]: MaxSize"],
        [{ old_branch_name: "x.lock" }, "[OldBranchName]: GitRefName"],
        [{ old_branch_name: "'quoted'~" }, "[OldBranchName]: GitRefName"],
        [{ old_branch_name: "ab/".repeat(40) + "a" }, "[OldBranchName]: MaxSize"],
        // The new name is bound first, as Forgejo's struct lists it.
        [{ new_branch_name: "a b", old_ref_name: "a\"b" }, "[BranchName]: GitRefName"]
      ]
      for (const [json, message] of cases) {
        const refused = yield* create(json)
        assert.deepStrictEqual([refused.status, refused.body], [422, validation(message)], JSON.stringify(json).slice(0, 80))
      }
      // A valid name of nothing: Forgejo answers 500 (GetCommit); Kiln 404, as for a missing old_branch_name.
      const unknown = yield* create({ old_ref_name: "nothing-here" })
      assert.deepStrictEqual([unknown.status, at(unknown.body, "message")], [404, "object does not exist [id: nothing-here, rel_path: ]"])
      const listed = yield* request("GET", "/api/v1/repos/brancher/r/branches", { auth: user.auth })
      assert.deepStrictEqual((listed.body as ReadonlyArray<unknown>).map((branch) => at(branch, "name")), ["main"])
      const made = yield* create({ old_ref_name: "main" })
      assert.strictEqual(made.status, 201, made.text)
    }))

  it.effect("a status's context of any length is stored and combined (Forgejo keeps it as TEXT)", () =>
    Effect.gen(function*() {
      const user = yield* createUser("ci")
      yield* request("POST", "/api/v1/user/repos", { auth: user.auth, json: { name: "r", auto_init: true, default_branch: "main" } })
      const sha = String(at((yield* request("GET", "/api/v1/repos/ci/r/branches/main", { auth: user.auth })).body, "commit", "id"))
      const context = incompressible(20_000)
      const created = yield* request("POST", `/api/v1/repos/ci/r/statuses/${sha}`, { auth: user.auth, json: { state: "success", context } })
      assert.strictEqual(created.status, 201, created.text.slice(0, 300))
      const combined = yield* request("GET", `/api/v1/repos/ci/r/commits/${sha}/status`, { auth: user.auth })
      assert.strictEqual(combined.status, 200)
      assert.strictEqual(at(combined.body, "statuses", 0, "context"), context)
    }))

  it.effect("an attachment's name: 422 [Name]: MaxSize past 255 characters, before its file is stored; a tag past 255 characters is not valid", () =>
    Effect.gen(function*() {
      const user = yield* createUser("releaser")
      yield* request("POST", "/api/v1/user/repos", { auth: user.auth, json: { name: "r", auto_init: true, default_branch: "main" } })
      // Components each within git's rules, the whole past what Forgejo's column and a ref file path hold.
      for (const [tag_name, draft] of [["ab/".repeat(85) + "a", false], ["ab/".repeat(3000) + "a", false], ["ab/".repeat(3000) + "a", true]] as const) {
        const refused = yield* request("POST", "/api/v1/repos/releaser/r/releases", { auth: user.auth, json: { tag_name, draft } })
        assert.deepStrictEqual([refused.status, refused.body], [422, validation(`release tag name is not valid [tag_name: ${tag_name}]`)])
      }
      const release = yield* request("POST", "/api/v1/repos/releaser/r/releases", { auth: user.auth, json: { tag_name: "v1" } })
      assert.strictEqual(release.status, 201, release.text)
      const assets = `/api/v1/repos/releaser/r/releases/${at(release.body, "id")}/assets`
      const long = incompressible(3000)
      const upload = yield* request("POST", `${assets}?name=${encodeURIComponent(long)}`, {
        auth: user.auth,
        body: "content",
        contentType: "application/octet-stream"
      })
      assert.deepStrictEqual([upload.status, upload.body], [422, validation("[Name]: MaxSize")])
      const external = yield* request("POST", assets, {
        auth: user.auth,
        body: `--b\r\nContent-Disposition: form-data; name="name"\r\n\r\n${long}\r\n` +
          `--b\r\nContent-Disposition: form-data; name="external_url"\r\n\r\nhttps://example.com/f\r\n--b--\r\n`,
        contentType: "multipart/form-data; boundary=b"
      })
      assert.deepStrictEqual([external.status, external.body], [422, validation("[Name]: MaxSize")])
      assert.deepStrictEqual((yield* request("GET", assets, { auth: user.auth })).body, [])

      const stored = yield* request("POST", `${assets}?name=f.bin`, { auth: user.auth, body: "content", contentType: "application/octet-stream" })
      assert.strictEqual(stored.status, 201, stored.text)
      for (const name of ["x".repeat(256), incompressible(20_000), "x".repeat(500_000)]) {
        const renamed = yield* request("PATCH", `${assets}/${at(stored.body, "id")}`, { auth: user.auth, json: { name } })
        assert.deepStrictEqual([renamed.status, renamed.body], [422, validation("[Name]: MaxSize")])
      }
      assert.strictEqual(at((yield* request("GET", `${assets}/${at(stored.body, "id")}`, { auth: user.auth })).body, "name"), "f.bin")
    }))
})
