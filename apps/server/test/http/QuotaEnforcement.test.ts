/**
 * Review finding 14 with KILN_QUOTA_ENFORCE on (Forgejo's `[quota] ENABLED`): an owner over quota
 * gets Forgejo's 413 `quota exceeded` for a new repository, a fork, a migration, a release
 * attachment and a package file, and a push is refused before git reads it; nothing is written.
 * Within quota, or with enforcement off (the default, where quotas only report as the spec
 * says), the same writes go through.
 */
import { assert, describe, layer } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import { at, baseUrl, createToken, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { cloneUrl, makeGitClient } from "./GitClient.ts"
import { adminCall } from "./QuotaFixtures.ts"

const exceeded = (id: unknown, name: string) => ({ message: "quota exceeded", user_id: id, username: name })

/** Puts `user` into a group whose single rule (limit 0 on everything) nobody can stand. */
const overQuota = (user: string) =>
  Effect.gen(function*() {
    const existing = yield* request("GET", "/api/v1/admin/quota/groups/none-left", { auth: TestServer.admin })
    if (existing.status === 404) {
      yield* adminCall("POST", "/admin/quota/groups", 201, { name: "none-left", rules: [{ name: "nothing", limit: 0, subjects: ["size:all"] }] })
    }
    yield* adminCall("PUT", `/admin/quota/groups/none-left/users/${user}`, 204)
  })

describe("quota enforcement", () => {
  layer(TestServer.layer({ quotaEnforce: true }), { timeout: "240 seconds" })("on", (it) => {
    it.effect("refuses every write that adds data for an owner over quota, and writes nothing", () =>
      Effect.scoped(Effect.gen(function*() {
        const full = yield* createUser("full")
        const base = yield* createUser("base-owner")
        yield* request("POST", "/api/v1/user/repos", { auth: base.auth, json: { name: "lib", auto_init: true } })
        // What exists before the quota is reached: a repository with a release.
        assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: full.auth, json: { name: "kept", auto_init: true } })).status, 201)
        const release = yield* request("POST", "/api/v1/repos/full/kept/releases", { auth: full.auth, json: { tag_name: "v1" } })
        assert.strictEqual(release.status, 201, release.text)
        const client = yield* makeGitClient
        const url = cloneUrl(yield* baseUrl, "full", "kept", { username: "full", password: full.password })
        const work = client.path("work")
        yield* client.git(["clone", "-q", url, work])

        yield* overQuota("full")
        const id = at(full.user, "id")

        const created = yield* request("POST", "/api/v1/user/repos", { auth: full.auth, json: { name: "more" } })
        assert.deepStrictEqual([created.status, created.body], [413, exceeded(id, "full")])
        const fork = yield* request("POST", "/api/v1/repos/base-owner/lib/forks", { auth: full.auth, json: {} })
        assert.deepStrictEqual([fork.status, fork.body], [413, exceeded(id, "full")])
        const migrated = yield* request("POST", "/api/v1/repos/migrate", {
          auth: full.auth,
          json: { clone_addr: "https://example.com/x.git", repo_name: "migrated" }
        })
        assert.deepStrictEqual([migrated.status, migrated.body], [413, exceeded(id, "full")])
        const asset = yield* request("POST", `/api/v1/repos/full/kept/releases/${String(at(release.body, "id"))}/assets?name=a.bin`, {
          auth: full.auth,
          body: "bytes",
          contentType: "application/octet-stream"
        })
        assert.deepStrictEqual([asset.status, asset.body], [413, exceeded(id, "full")])
        const upload = yield* request("PUT", "/api/packages/full/generic/tool/1.0.0/tool.bin", {
          auth: full.auth,
          body: "bytes",
          contentType: "application/octet-stream"
        })
        assert.strictEqual(upload.status, 413, upload.text)
        assert.include(upload.text, "quota exceeded")

        const before = yield* client.refs(work)
        yield* client.commit(work, { "more.txt": "more\n" }, "more")
        const pushed = yield* client.run(["push", "origin", "HEAD"], { cwd: work })
        assert.notStrictEqual(pushed.code, 0)
        assert.include(pushed.stderr, "413")

        for (const path of ["/api/v1/repos/full/more", "/api/v1/repos/full/lib", "/api/v1/repos/full/migrated"]) {
          assert.strictEqual((yield* request("GET", path, { auth: full.auth })).status, 404, path)
        }
        const stored = yield* request("GET", "/api/v1/repos/full/kept/releases/tags/v1", { auth: full.auth })
        assert.deepStrictEqual(at(stored.body, "assets"), [])
        assert.strictEqual((yield* request("GET", "/api/v1/packages/full", { auth: full.auth })).text, "[]")
        const branch = yield* request("GET", "/api/v1/repos/full/kept/branches/main", { auth: full.auth })
        assert.strictEqual(at(branch.body, "commit", "id"), before.get("refs/heads/main"))

        // Another owner, within quota, is not affected; reads of the full one still work.
        assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: base.auth, json: { name: "free" } })).status, 201)
        const clone = yield* client.run(["clone", "-q", url, client.path("again")])
        assert.strictEqual(clone.code, 0, clone.stderr)
      })))
  })

  layer(TestServer.layer({ quotaEnforce: true }), { timeout: "240 seconds" })("on, pushing with a token", (it) => {
    it.effect("refuses the push after the one that took its owner over quota", () =>
      // A token's access decisions are kept across pushes (GitDecisions.ts); a push's quota check
      // reads the sizes pushes change, so the second push is decided again and refused. (The test
      // server's jobs also move the access version, so GitDecisions.test.ts holds that choice.)
      Effect.scoped(Effect.gen(function*() {
        const grower = yield* createUser("grower")
        assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: grower.auth, json: { name: "grows", auto_init: true } })).status, 201)
        const token = yield* createToken(grower.auth, "grower", "pusher", ["write:repository", "read:user"])
        const usage = yield* request("GET", "/api/v1/user/quota", { auth: grower.auth })
        const used = Number(at(usage.body, "used", "size", "repos", "public"))
        assert.isAbove(used, 0, usage.text)
        yield* adminCall("POST", "/admin/quota/groups", 201, { name: "a-little-more", rules: [{ name: "repos", limit: used + 50_000, subjects: ["size:repos:all"] }] })
        yield* adminCall("PUT", "/admin/quota/groups/a-little-more/users/grower", 204)

        const client = yield* makeGitClient
        const work = client.path("grows")
        yield* client.git(["clone", "-q", cloneUrl(yield* baseUrl, "grower", "grows", { username: token, password: "" }), work])
        // ~200 KB once compressed: past the limit once pushed.
        yield* client.commit(work, { "blob.txt": randomBytes(200_000).toString("base64") }, "large")
        const first = yield* client.run(["push", "origin", "HEAD"], { cwd: work })
        assert.strictEqual(first.code, 0, first.stderr)
        yield* client.commit(work, { "small.txt": "small\n" }, "small")
        const second = yield* client.run(["push", "origin", "HEAD"], { cwd: work })
        assert.notStrictEqual(second.code, 0)
        assert.include(second.stderr, "413")
      })))
  })

  layer(TestServer.layer(), { timeout: "120 seconds" })("off (the default)", (it) => {
    it.effect("only reports: an owner over quota still creates repositories", () =>
      Effect.gen(function*() {
        const full = yield* createUser("reported")
        yield* overQuota("reported")
        const check = yield* request("GET", "/api/v1/user/quota/check?subject=size:repos:all", { auth: full.auth })
        assert.strictEqual(check.text, "true")
        assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: full.auth, json: { name: "allowed" } })).status, 201)
      }))
  })
})
