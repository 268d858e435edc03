/**
 * The generic package registry end to end: uploads and downloads compared byte for byte, Forgejo's
 * name rules and conflicts, deletion of files and versions, access (owner, organization teams,
 * private owners, token scopes), the package list of /api/v1, and quota usage following blobs.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { at, baseUrl, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const authHeader = (auth: TestServer.Auth | undefined): Record<string, string> => {
  if (auth?.basic !== undefined) {
    return { authorization: `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString("base64")}` }
  }
  return auth?.token !== undefined ? { authorization: `token ${auth.token}` } : {}
}

const call = (method: string, path: string, auth?: TestServer.Auth, body?: string | Uint8Array, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, { method, headers: { ...authHeader(auth), ...headers }, ...(body === undefined ? {} : { body }) }))
    const bytes = Buffer.from(yield* Effect.promise(() => response.arrayBuffer()))
    return { status: response.status, headers: response.headers, bytes, text: bytes.toString("utf8") }
  })

const blobFiles = Effect.map(Effect.service(KilnConfig), (config) => {
  const root = Path.join(config.dataDir, "packages")
  return Fs.existsSync(root)
    ? Fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name).sort()
    : []
})

/** A blob's file name: the content's SHA-256. */
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

layer(TestServer.layer({ attachmentMaxSize: 1024 * 1024 }), { timeout: "180 seconds" })("generic packages", (it) => {
  it.effect("uploads, downloads by range, refuses duplicates and bad names, deletes files and versions", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("pkg-owner")
      const content = randomBytes(300 * 1024)
      const put = yield* call("PUT", "/api/packages/pkg-owner/generic/tool/1.0.0/tool.tar.gz", owner.auth, content)
      assert.strictEqual(put.status, 201, put.text)
      assert.strictEqual(put.text, "")
      const again = yield* call("PUT", "/api/packages/pkg-owner/generic/tool/1.0.0/TOOL.tar.gz", owner.auth, content)
      assert.strictEqual(again.status, 409)
      assert.strictEqual(again.text, "package file already exists")

      const got = yield* call("GET", "/api/packages/pkg-owner/generic/Tool/1.0.0/tool.tar.gz", owner.auth)
      assert.strictEqual(got.status, 200)
      assert.deepStrictEqual(got.bytes, content)
      assert.strictEqual(got.headers.get("content-type"), "application/octet-stream")
      assert.strictEqual(got.headers.get("content-length"), String(content.length))
      assert.strictEqual(got.headers.get("content-disposition"), "attachment; filename=\"tool.tar.gz\"; filename*=UTF-8''tool.tar.gz")
      const ranged = yield* call("GET", "/api/packages/pkg-owner/generic/tool/1.0.0/tool.tar.gz", owner.auth, undefined, { range: "bytes=-100" })
      assert.strictEqual(ranged.status, 206)
      assert.deepStrictEqual(ranged.bytes, content.subarray(content.length - 100))

      for (const [path, message] of [
        ["/api/packages/pkg-owner/generic/bad%20name/1.0/f.bin", "invalid package name"],
        ["/api/packages/pkg-owner/generic/_/1.0/f.bin", "invalid package name"],
        ["/api/packages/pkg-owner/generic/ok/1.0/%20f.bin", "invalid filename"],
        ["/api/packages/pkg-owner/generic/ok/%201.0/f.bin", "invalid package version"]
      ] as const) {
        const refused = yield* call("PUT", path, owner.auth, "x")
        assert.strictEqual(refused.status, 400, path)
        assert.strictEqual(refused.text, message, path)
      }

      // Two files of one content share one blob.
      const copy = yield* call("PUT", "/api/packages/pkg-owner/generic/tool/1.0.0/copy.tar.gz", owner.auth, content)
      assert.strictEqual(copy.status, 201)
      assert.deepStrictEqual(yield* blobFiles, [sha256(content)])

      assert.strictEqual((yield* call("DELETE", "/api/packages/pkg-owner/generic/tool/1.0.0/tool.tar.gz", owner.auth)).status, 204)
      assert.deepStrictEqual(yield* blobFiles, [sha256(content)])
      const missing = yield* call("GET", "/api/packages/pkg-owner/generic/tool/1.0.0/tool.tar.gz", owner.auth)
      assert.strictEqual(missing.status, 404)
      assert.strictEqual(missing.text, "package file does not exist")
      assert.strictEqual((yield* call("DELETE", "/api/packages/pkg-owner/generic/tool/1.0.0", owner.auth)).status, 204)
      assert.deepStrictEqual(yield* blobFiles, [])
      const noVersion = yield* call("DELETE", "/api/packages/pkg-owner/generic/tool/1.0.0", owner.auth)
      assert.strictEqual(noVersion.status, 404)
      assert.strictEqual(noVersion.text, "package does not exist")
    }))

  it.effect("lets readers download, only writers upload; hides private owners; checks token scopes", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("pkg-access")
      const stranger = yield* createUser("pkg-stranger")
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-access/generic/lib/1/lib.bin", owner.auth, "v1")).status, 201)
      const anonymous = yield* call("GET", "/api/packages/pkg-access/generic/lib/1/lib.bin")
      assert.strictEqual(anonymous.status, 200)
      assert.strictEqual(anonymous.text, "v1")
      const strangerPut = yield* call("PUT", "/api/packages/pkg-access/generic/lib/2/lib.bin", stranger.auth, "v2")
      assert.strictEqual(strangerPut.status, 401)
      assert.strictEqual(strangerPut.text, "user should have specific permission or be a site admin")
      assert.strictEqual(strangerPut.headers.get("www-authenticate"), "Basic realm=\"Gitea Package API\"")
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-access/generic/lib/2/lib.bin", undefined, "v2")).status, 401)
      assert.strictEqual((yield* call("DELETE", "/api/packages/pkg-access/generic/lib/1", stranger.auth)).status, 401)

      const readOnly = yield* createToken(owner.auth, "pkg-access", "read-only", ["read:package"])
      assert.strictEqual((yield* call("GET", "/api/packages/pkg-access/generic/lib/1/lib.bin", { token: readOnly })).status, 200)
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-access/generic/lib/3/lib.bin", { token: readOnly }, "v3")).status, 401)
      const writer = yield* createToken(owner.auth, "pkg-access", "writer", ["write:package"])
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-access/generic/lib/3/lib.bin", { token: writer }, "v3")).status, 201)
      const noScope = yield* createToken(owner.auth, "pkg-access", "repo-only", ["read:repository"])
      assert.strictEqual((yield* call("GET", "/api/packages/pkg-access/generic/lib/1/lib.bin", { token: noScope })).status, 401)

      const hidden = yield* createUser("pkg-hidden", { visibility: "private" })
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-hidden/generic/x/1/x.bin", hidden.auth, "x")).status, 201)
      assert.strictEqual((yield* call("GET", "/api/packages/pkg-hidden/generic/x/1/x.bin", stranger.auth)).status, 401)
      assert.strictEqual((yield* call("GET", "/api/packages/pkg-hidden/generic/x/1/x.bin")).status, 401)
      assert.strictEqual((yield* call("GET", "/api/packages/pkg-hidden/generic/x/1/x.bin", TestServer.admin)).status, 200)
      const listHidden = yield* request("GET", "/api/v1/packages/pkg-hidden", { auth: stranger.auth })
      assert.strictEqual(listHidden.status, 403)
      assert.strictEqual((yield* call("GET", "/api/packages/nobody-here/generic/x/1/x.bin")).status, 404)
    }))

  it.effect("lists package versions with Forgejo's Package JSON, newest first", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("pkg-list")
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-list/generic/Alpha/1.0/a.bin", owner.auth, "a")).status, 201)
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-list/generic/beta/2.0/b.bin", owner.auth, "b")).status, 201)
      const listed = yield* request("GET", "/api/v1/packages/pkg-list")
      assert.strictEqual(listed.status, 200, listed.text)
      assert.strictEqual(listed.headers.get("x-total-count"), "2")
      const items = listed.body as Array<unknown>
      assert.deepStrictEqual(Object.keys(items[0] as object), [
        "id", "owner", "repository", "creator", "type", "name", "version", "html_url", "created_at"
      ])
      assert.deepStrictEqual(items.map((item) => at(item, "name")), ["beta", "Alpha"])
      assert.strictEqual(at(items[1], "html_url"), `${ROOT_URL}pkg-list/-/packages/generic/alpha/1.0`)
      assert.strictEqual(at(items[1], "owner", "login"), "pkg-list")
      assert.strictEqual(at(items[1], "creator", "login"), "pkg-list")
      assert.strictEqual(at(items[1], "repository"), null)
      const filtered = yield* request("GET", "/api/v1/packages/pkg-list?q=alp&type=generic")
      assert.deepStrictEqual((filtered.body as Array<unknown>).map((item) => at(item, "name")), ["Alpha"])
      const otherType = yield* request("GET", "/api/v1/packages/pkg-list?type=npm")
      assert.deepStrictEqual(otherType.body, [])
      assert.strictEqual((yield* request("GET", "/api/v1/packages/no-such-owner")).status, 404)
    }))

  it.effect("counts package blobs in the owner's usage and package list, organizations included", () =>
    Effect.gen(function*() {
      const quota = yield* QuotaStore
      const owner = yield* createUser("pkg-quota")
      const ownerId = Number(at(owner.user, "id"))
      const page = { page: 1, limit: 30 }
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-quota/generic/lib/1/a.bin", owner.auth, randomBytes(700))).status, 201)
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-quota/generic/lib/1/b.bin", owner.auth, randomBytes(300))).status, 201)
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-quota/generic/lib/2/a.bin", owner.auth, randomBytes(50))).status, 201)
      assert.strictEqual((yield* quota.usageOf(ownerId)).packages, 1050)
      const listed = yield* quota.listPackages(ownerId, page)
      assert.deepStrictEqual(listed.items.map((item) => [item.owner, item.type, item.name, item.version, item.size]), [
        ["pkg-quota", "generic", "lib", "1", 1000],
        ["pkg-quota", "generic", "lib", "2", 50]
      ])
      assert.strictEqual((yield* call("DELETE", "/api/packages/pkg-quota/generic/lib/1/a.bin", owner.auth)).status, 204)
      assert.strictEqual((yield* quota.usageOf(ownerId)).packages, 350)
      assert.strictEqual((yield* call("DELETE", "/api/packages/pkg-quota/generic/lib/1", owner.auth)).status, 204)
      assert.strictEqual((yield* call("DELETE", "/api/packages/pkg-quota/generic/lib/2", owner.auth)).status, 204)
      assert.strictEqual((yield* quota.usageOf(ownerId)).packages, 0)
      assert.deepStrictEqual(yield* quota.listPackages(ownerId, page), { items: [], total: 0 })

      // An organization's packages count for the organization, not for the member who uploaded them.
      const org = yield* request("POST", "/api/v1/orgs", { auth: owner.auth, json: { username: "pkg-org" } })
      assert.strictEqual(org.status, 201, org.text)
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-org/generic/tool/1/t.bin", owner.auth, randomBytes(123))).status, 201)
      assert.strictEqual((yield* quota.usageOf(Number(at(org.body, "id")))).packages, 123)
      assert.strictEqual((yield* quota.usageOf(ownerId)).packages, 0)
      const member = yield* createUser("pkg-member")
      assert.strictEqual((yield* call("PUT", "/api/packages/pkg-org/generic/tool/2/t.bin", member.auth, "x")).status, 401)
    }))
})
