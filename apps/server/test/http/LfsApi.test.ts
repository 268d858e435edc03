/**
 * The Git LFS API end to end over a real socket, every message checked against git-lfs's JSON
 * schemas: batch upload and download, streamed uploads refused on a size or hash mismatch (nothing
 * kept), downloads with ranges, verify, locks, Forgejo's statuses (415, 401 with the challenges,
 * per-object errors inside a 200), access through GitAccess (read-only collaborators, token
 * scopes, renamed repositories), linking of existing objects, forks, `git-lfs-authenticate`'s
 * tokens, and the owner's `size:git:lfs` rising and falling with references.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { createHash, randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { deployKey, signed } from "@kiln/domain/git/GitAccess"
import { LfsAuthenticate } from "@kiln/domain/lfs/LfsAuthenticate"
import { LfsCollection } from "@kiln/domain/lfs/LfsCollection"
import { UserStore } from "@kiln/domain/user/UserStore"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { assertSchema } from "../support/LfsSchemas.ts"
import { makeKeyPair } from "../support/SshClient.ts"
import { at, baseUrl, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { adminCall } from "./QuotaFixtures.ts"

const LFS = "application/vnd.git-lfs+json"

const authHeader = (auth: TestServer.Auth | undefined): Record<string, string> => {
  if (auth?.basic !== undefined) {
    return { authorization: `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString("base64")}` }
  }
  if (auth?.bearer !== undefined) return { authorization: `Bearer ${auth.bearer}` }
  return auth?.token !== undefined ? { authorization: `token ${auth.token}` } : {}
}

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly bytes: Buffer
  readonly text: string
  readonly body: unknown
}

const call = (method: string, path: string, options: {
  readonly auth?: TestServer.Auth | undefined
  readonly json?: unknown
  readonly body?: Uint8Array
  readonly headers?: Record<string, string>
} = {}) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const headers: Record<string, string> = { ...authHeader(options.auth), ...options.headers }
    let body: string | Uint8Array | undefined = options.body
    if (options.json !== undefined) {
      body = JSON.stringify(options.json)
      headers["content-type"] ??= LFS
      headers["accept"] ??= LFS
    }
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, { method, headers, redirect: "manual", ...(body === undefined ? {} : { body }) }))
    const bytes = Buffer.from(yield* Effect.promise(() => response.arrayBuffer()))
    const text = bytes.toString("utf8")
    let parsed: unknown = undefined
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, bytes, text, body: parsed } satisfies Answer
  })

const object = (size: number) => {
  const content = randomBytes(size)
  return { content, oid: createHash("sha256").update(content).digest("hex"), size }
}

type LfsObject = ReturnType<typeof object>

const batch = (repo: string, operation: "upload" | "download", objects: ReadonlyArray<{ oid: string; size: number }>, auth?: TestServer.Auth) =>
  Effect.gen(function*() {
    const message = { operation, transfers: ["basic"], objects }
    assertSchema("http-batch-request", message)
    const answer = yield* call("POST", `/${repo}.git/info/lfs/objects/batch`, { auth, json: message })
    if (answer.status === 200) {
      assertSchema("http-batch-response", answer.body)
      assert.strictEqual(answer.headers.get("content-type"), LFS)
    }
    return answer
  })

const upload = (repo: string, item: LfsObject, auth: TestServer.Auth, body: Uint8Array = item.content) =>
  call("PUT", `/${repo}.git/info/lfs/objects/${item.oid}/${item.size}`, {
    auth,
    body,
    headers: { "content-type": "application/octet-stream" }
  })

const lfsUsage = (auth: TestServer.Auth, path = "/user") =>
  Effect.map(request("GET", `/api/v1${path}/quota`, { auth }), (response) => Number(at(response.body, "used", "size", "git", "LFS")))

const lfsFiles = Effect.map(Effect.service(KilnConfig), (config) => {
  const root = Path.join(config.dataDir, "lfs")
  return Fs.existsSync(root)
    ? Fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length
    : 0
})

const createRepo = (auth: TestServer.Auth, name: string, extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const created = yield* request("POST", "/api/v1/user/repos", { auth, json: { name, ...extra } })
    assert.strictEqual(created.status, 201, created.text)
  })

const objectsOf = (body: unknown): ReadonlyArray<unknown> => {
  const listed = at(body, "objects")
  return Array.isArray(listed) ? listed : []
}

describe("Git LFS API", () => {
  layer(TestServer.layer(), { timeout: "300 seconds" })("served", (it) => {
    it.effect("uploads through the batch and the basic adapter, downloads with ranges, verifies, and counts usage", () =>
      Effect.gen(function*() {
        const alice = yield* createUser("alice")
        yield* createRepo(alice.auth, "media")
        const small = object(1000)
        const big = object(300_000)

        // The upload batch asks for both, with the request's Authorization echoed.
        const asked = yield* batch("alice/media", "upload", [small, big].map(({ oid, size }) => ({ oid, size })), alice.auth)
        assert.strictEqual(asked.status, 200, asked.text)
        const [first] = objectsOf(asked.body)
        assert.strictEqual(at(first, "actions", "upload", "href"), `${ROOT_URL}alice/media.git/info/lfs/objects/${small.oid}/${small.size}`)
        assert.strictEqual(at(first, "actions", "verify", "href"), `${ROOT_URL}alice/media.git/info/lfs/verify`)
        assert.strictEqual(at(first, "actions", "upload", "header", "Authorization"), authHeader(alice.auth)["authorization"])
        assert.strictEqual(at(first, "actions", "verify", "header", "Accept"), LFS)
        assert.strictEqual(yield* lfsUsage(alice.auth), 0)

        // A body whose hash or size differs is refused, and nothing is kept.
        const wrong = yield* upload("alice/media", small, alice.auth, randomBytes(1000))
        assert.strictEqual(wrong.status, 422)
        assert.deepStrictEqual(wrong.body, { message: "Content hash does not match OID" })
        const short = yield* upload("alice/media", small, alice.auth, small.content.subarray(0, 999))
        assert.strictEqual(short.status, 422)
        assert.deepStrictEqual(short.body, { message: "Content size does not match" })
        const long = yield* upload("alice/media", small, alice.auth, Buffer.concat([small.content, Buffer.from("x")]))
        assert.strictEqual(long.status, 422)
        assert.strictEqual(yield* lfsFiles, 0)
        assert.strictEqual(yield* lfsUsage(alice.auth), 0)

        // Uploads (the path without .git too) count as they complete.
        assert.strictEqual((yield* upload("alice/media", small, alice.auth)).status, 200)
        assert.strictEqual(yield* lfsUsage(alice.auth), 1000)
        const second = yield* call("PUT", `/alice/media/info/lfs/objects/${big.oid}/${big.size}`, { auth: alice.auth, body: big.content })
        assert.strictEqual(second.status, 200, second.text)
        assert.strictEqual(yield* lfsUsage(alice.auth), 301_000)
        assert.strictEqual(yield* lfsFiles, 2)
        const check = yield* request("GET", "/api/v1/user/quota/check?subject=size:git:lfs", { auth: alice.auth })
        assert.strictEqual(check.status, 200)

        // Verify: the stored object with its size, else 404.
        const verified = yield* call("POST", "/alice/media.git/info/lfs/verify", { auth: alice.auth, json: { oid: small.oid, size: small.size } })
        assert.strictEqual(verified.status, 200, verified.text)
        const notVerified = yield* call("POST", "/alice/media.git/info/lfs/verify", { auth: alice.auth, json: { oid: small.oid, size: 7 } })
        assert.strictEqual(notVerified.status, 404)

        // Uploading again: nothing to send.
        const again = yield* batch("alice/media", "upload", [{ oid: small.oid, size: small.size }], alice.auth)
        assert.isUndefined(at(objectsOf(again.body)[0], "actions"))

        // Download batch: actions for stored objects, per-object errors inside the 200.
        const missing = object(10)
        const down = yield* batch("alice/media", "download", [
          { oid: big.oid, size: big.size },
          { oid: missing.oid, size: missing.size },
          { oid: small.oid, size: 5 },
          { oid: "not-an-oid", size: 1 }
        ], alice.auth)
        assert.strictEqual(down.status, 200, down.text)
        const [found, absent, wrongSize, invalid] = objectsOf(down.body)
        assert.strictEqual(at(found, "actions", "download", "href"), `${ROOT_URL}alice/media.git/info/lfs/objects/${big.oid}`)
        assert.deepStrictEqual(at(absent, "error"), { code: 404, message: "Not Found" })
        assert.deepStrictEqual(at(wrongSize, "error"), { code: 422, message: `Object ${small.oid} is not 5 bytes` })
        assert.deepStrictEqual(at(invalid, "error"), { code: 422, message: "Oid or size are invalid" })

        // Downloads, whole and by range.
        const whole = yield* call("GET", `/alice/media.git/info/lfs/objects/${big.oid}`, { auth: alice.auth })
        assert.strictEqual(whole.status, 200)
        assert.isTrue(whole.bytes.equals(big.content))
        const part = yield* call("GET", `/alice/media.git/info/lfs/objects/${big.oid}`, { auth: alice.auth, headers: { range: "bytes=100-199" } })
        assert.strictEqual(part.status, 206)
        assert.strictEqual(part.headers.get("content-range"), `bytes 100-199/${big.size}`)
        assert.isTrue(part.bytes.equals(big.content.subarray(100, 200)))
        const beyond = yield* call("GET", `/alice/media.git/info/lfs/objects/${big.oid}`, { auth: alice.auth, headers: { range: `bytes=${big.size}-` } })
        assert.strictEqual(beyond.status, 416)
        const named = yield* call("GET", `/alice/media/info/lfs/objects/${small.oid}/${Buffer.from("a.bin").toString("base64url")}`, { auth: alice.auth })
        assert.strictEqual(named.headers.get("content-disposition"), "attachment; filename=\"a.bin\"; filename*=UTF-8''a.bin")
        const unknown = yield* call("GET", `/alice/media.git/info/lfs/objects/${missing.oid}`, { auth: alice.auth })
        assert.strictEqual(unknown.status, 404)
      }))

    it.effect("names a download with any file name: UTF-8 in filename*, printable ASCII in filename, control characters replaced", () =>
      Effect.gen(function*() {
        const ana = yield* createUser("ana-names")
        yield* createRepo(ana.auth, "named")
        const item = object(100)
        assert.strictEqual((yield* upload("ana-names/named", item, ana.auth)).status, 200)
        // Node refused the header (a 500 with no body) for characters above U+00FF and for
        // control characters, and sent U+0080–U+00FF as single Latin-1 bytes.
        const names: ReadonlyArray<readonly [string, string, string]> = [
          ["日本.txt", "日本.txt", "__.txt"],
          ["a\r\nX-Injected: 1", "a__X-Injected: 1", "a__X-Injected: 1"],
          ["a\u0001b", "a_b", "a_b"],
          ["é.txt", "é.txt", "_.txt"],
          ["say \"hi\" (1)'s*.bin", "say \"hi\" (1)'s*.bin", "say \\\"hi\\\" (1)'s*.bin"],
          ["🎉\u0085.txt", "🎉_.txt", "__.txt"]
        ]
        for (const [name, expected, plain] of names) {
          const answer = yield* call("GET", `/ana-names/named.git/info/lfs/objects/${item.oid}/${Buffer.from(name).toString("base64url")}`, {
            auth: ana.auth
          })
          assert.strictEqual(answer.status, 200, JSON.stringify(name))
          assert.isTrue(answer.bytes.equals(item.content))
          assert.isNull(answer.headers.get("x-injected"))
          const disposition = answer.headers.get("content-disposition") ?? ""
          // Every byte of the header is printable ASCII.
          assert.match(disposition, /^[\x20-\x7e]+$/, JSON.stringify(disposition))
          const encoded = /; filename\*=UTF-8''([^;]+)$/.exec(disposition)?.[1]
          assert.isDefined(encoded, disposition)
          assert.strictEqual(decodeURIComponent(encoded ?? ""), expected)
          assert.notMatch(encoded ?? "", /['()*]/)
          assert.strictEqual(/^attachment; filename="((?:[^"\\]|\\.)*)"; /.exec(disposition)?.[1], plain)
        }
      }))

    it.effect("answers Forgejo's statuses: 415 without the LFS media type, 401 with challenges, 404 for hidden repositories", () =>
      Effect.gen(function*() {
        const bob = yield* createUser("bob")
        yield* createRepo(bob.auth, "secret", { private: true })
        const item = object(20)
        const message = { operation: "download", objects: [{ oid: item.oid, size: item.size }] }
        const plain = yield* call("POST", "/bob/secret.git/info/lfs/objects/batch", {
          auth: bob.auth,
          json: message,
          headers: { accept: "application/json" }
        })
        assert.strictEqual(plain.status, 415)
        assert.deepStrictEqual(plain.body, { message: "Unsupported Media Type" })
        const anonymous = yield* batch("bob/secret", "download", message.objects)
        assert.strictEqual(anonymous.status, 401)
        assert.strictEqual(anonymous.headers.get("www-authenticate"), "Basic realm=\"gitea-lfs\"")
        assert.strictEqual(anonymous.headers.get("lfs-authenticate"), "Basic realm=\"gitea-lfs\"")
        const wrongPassword = yield* batch("bob/secret", "download", message.objects, TestServer.basic("bob", "nope"))
        assert.strictEqual(wrongPassword.status, 401)
        const carol = yield* createUser("carol")
        const hidden = yield* batch("bob/secret", "download", message.objects, carol.auth)
        assert.strictEqual(hidden.status, 404)
        const badOperation = yield* call("POST", "/bob/secret.git/info/lfs/objects/batch", { auth: bob.auth, json: { operation: "delete", objects: [] } })
        assert.strictEqual(badOperation.status, 400)
        const notJson = yield* call("POST", "/bob/secret.git/info/lfs/objects/batch", {
          auth: bob.auth,
          body: Buffer.from("{"),
          headers: { accept: LFS, "content-type": LFS }
        })
        assert.strictEqual(notJson.status, 400)
        const elsewhere = yield* call("GET", "/bob/secret.git/info/lfs/nothing-here", { auth: bob.auth })
        assert.strictEqual(elsewhere.status, 404)
      }))

    it.effect("decides access as git's routes: read-only collaborators, token scopes and renamed repositories", () =>
      Effect.gen(function*() {
        const dora = yield* createUser("dora")
        const eve = yield* createUser("eve")
        yield* createRepo(dora.auth, "assets")
        const added = yield* request("PUT", "/api/v1/repos/dora/assets/collaborators/eve", { auth: dora.auth, json: { permission: "read" } })
        assert.strictEqual(added.status, 204, added.text)
        const item = object(64)
        const refused = yield* batch("dora/assets", "upload", [{ oid: item.oid, size: item.size }], eve.auth)
        assert.strictEqual(refused.status, 403, refused.text)
        assert.strictEqual((yield* upload("dora/assets", item, eve.auth)).status, 403)
        const lock = yield* call("POST", "/dora/assets.git/info/lfs/locks", { auth: eve.auth, json: { path: "a.psd" } })
        assert.strictEqual(lock.status, 403)

        const readToken = yield* createToken(dora.auth, "dora", "lfs-read", ["read:repository"])
        const byToken = yield* batch("dora/assets", "upload", [{ oid: item.oid, size: item.size }], { token: readToken })
        assert.strictEqual(byToken.status, 403)
        const writeToken = yield* createToken(dora.auth, "dora", "lfs-write", ["write:repository"])
        assert.strictEqual((yield* upload("dora/assets", item, { bearer: writeToken })).status, 200)
        const viaBasicToken = yield* batch("dora/assets", "download", [{ oid: item.oid, size: item.size }], TestServer.basic("dora", writeToken))
        assert.strictEqual(viaBasicToken.status, 200, viaBasicToken.text)

        // A renamed repository's old name leads on: 307 for the batch (its body sent again), 301 for a download.
        const renamed = yield* request("PATCH", "/api/v1/repos/dora/assets", { auth: dora.auth, json: { name: "art" } })
        assert.strictEqual(renamed.status, 200, renamed.text)
        const moved = yield* batch("dora/assets", "download", [{ oid: item.oid, size: item.size }], dora.auth)
        assert.strictEqual(moved.status, 307)
        assert.strictEqual(moved.headers.get("location"), `${ROOT_URL}dora/art.git/info/lfs/objects/batch`)
        const movedGet = yield* call("GET", `/dora/assets/info/lfs/objects/${item.oid}`, { auth: dora.auth })
        assert.strictEqual(movedGet.status, 301)
        assert.strictEqual(movedGet.headers.get("location"), `${ROOT_URL}dora/art/info/lfs/objects/${item.oid}`)
      }))

    it.effect("refuses an account that must change its password with 401 and Forgejo's text, by password or token", () =>
      Effect.gen(function*() {
        const mona = yield* createUser("mona")
        yield* createRepo(mona.auth, "media")
        const token = yield* createToken(mona.auth, "mona", "lfs", ["write:repository"])
        const must = yield* request("PATCH", "/api/v1/admin/users/mona", {
          auth: TestServer.admin,
          json: { login_name: "mona", source_id: 0, must_change_password: true }
        })
        assert.strictEqual(must.status, 200, must.text)
        const item = object(32)
        for (const auth of [mona.auth, TestServer.basic("mona", token)]) {
          const refused = yield* batch("mona/media", "upload", [{ oid: item.oid, size: item.size }], auth)
          assert.strictEqual(refused.status, 401, refused.text)
          assert.deepStrictEqual(refused.body, { message: "Update your password" })
          assert.isNull(refused.headers.get("lfs-authenticate"))
        }
        assert.strictEqual((yield* upload("mona/media", item, mona.auth)).status, 401)
      }))

    it.effect("links an object stored already only for a caller who may read it or uploads its bytes; forks and deletions follow", () =>
      Effect.gen(function*() {
        const frank = yield* createUser("frank")
        const gina = yield* createUser("gina")
        yield* createRepo(frank.auth, "private-assets", { private: true })
        yield* createRepo(frank.auth, "public-assets")
        yield* createRepo(gina.auth, "mine")
        const item = object(5000)
        assert.strictEqual((yield* upload("frank/private-assets", item, frank.auth)).status, 200)
        const filesBefore = yield* lfsFiles

        // Gina cannot read frank's private repository: she must send the bytes.
        const ask = yield* batch("gina/mine", "upload", [{ oid: item.oid, size: item.size }], gina.auth)
        assert.isDefined(at(objectsOf(ask.body)[0], "actions", "upload"))
        const noDownload = yield* batch("gina/mine", "download", [{ oid: item.oid, size: item.size }], gina.auth)
        assert.deepStrictEqual(at(objectsOf(noDownload.body)[0], "error", "code"), 404)
        assert.strictEqual((yield* upload("gina/mine", item, gina.auth, randomBytes(5000))).status, 422)
        assert.strictEqual((yield* upload("gina/mine", item, gina.auth)).status, 200)
        assert.strictEqual(yield* lfsUsage(gina.auth), 5000)
        // Stored once whatever the number of repositories.
        assert.strictEqual(yield* lfsFiles, filesBefore)

        // Frank may read his own repository: the batch links the object without an upload.
        const linked = yield* batch("frank/public-assets", "upload", [{ oid: item.oid, size: item.size }], frank.auth)
        assert.isUndefined(at(objectsOf(linked.body)[0], "actions"))
        assert.strictEqual(yield* lfsUsage(frank.auth), 10_000)

        // A fork starts with its base's objects, counted for the fork's owner.
        const forked = yield* request("POST", "/api/v1/repos/frank/public-assets/forks", { auth: gina.auth, json: { name: "forked" } })
        assert.strictEqual(forked.status, 202, forked.text)
        const fromFork = yield* batch("gina/forked", "download", [{ oid: item.oid, size: item.size }], gina.auth)
        assert.isDefined(at(objectsOf(fromFork.body)[0], "actions", "download"))
        assert.strictEqual(yield* lfsUsage(gina.auth), 10_000)

        // Deleting repositories drops their references and the usage with them.
        assert.strictEqual((yield* request("DELETE", "/api/v1/repos/gina/forked", { auth: gina.auth })).status, 204)
        assert.strictEqual((yield* request("DELETE", "/api/v1/repos/gina/mine", { auth: gina.auth })).status, 204)
        assert.strictEqual(yield* lfsUsage(gina.auth), 0)
        assert.strictEqual(yield* lfsUsage(frank.auth), 10_000)
      }))

    it.effect("locks: created, listed, verified, refused to another, unlocked by force, unknown ones 404", () =>
      Effect.gen(function*() {
        const hal = yield* createUser("hal")
        const ivy = yield* createUser("ivy")
        yield* createRepo(hal.auth, "game")
        const added = yield* request("PUT", "/api/v1/repos/hal/game/collaborators/ivy", { auth: hal.auth, json: { permission: "write" } })
        assert.strictEqual(added.status, 204, added.text)
        const base = "/hal/game.git/info/lfs/locks"

        const createMessage = { path: "/art//hero.psd" }
        assertSchema("http-lock-create-request", createMessage)
        const created = yield* call("POST", base, { auth: hal.auth, json: createMessage })
        assert.strictEqual(created.status, 201, created.text)
        assertSchema("http-lock-create-response", created.body)
        assert.strictEqual(at(created.body, "lock", "path"), "art/hero.psd")
        assert.strictEqual(at(created.body, "lock", "owner", "name"), "hal")
        const id = String(at(created.body, "lock", "id"))

        const conflict = yield* call("POST", base, { auth: ivy.auth, json: { path: "art/hero.psd" } })
        assert.strictEqual(conflict.status, 409)
        assertSchema("http-lock-create-response", conflict.body)
        assert.strictEqual(at(conflict.body, "message"), "already created lock")
        assert.strictEqual(at(conflict.body, "lock", "id"), id)
        const ivys = yield* call("POST", base, { auth: ivy.auth, json: { path: "level.bin" } })
        assert.strictEqual(ivys.status, 201)

        const listed = yield* call("GET", base, { auth: ivy.auth, headers: { accept: LFS } })
        assert.strictEqual(listed.status, 200, listed.text)
        assertSchema("http-lock-list-response", listed.body)
        assert.lengthOf(at(listed.body, "locks") as ReadonlyArray<unknown>, 2)
        const byPath = yield* call("GET", `${base}?path=art/hero.psd`, { auth: ivy.auth, headers: { accept: LFS } })
        assert.strictEqual(at(byPath.body, "locks", 0, "id"), id)
        const paged = yield* call("GET", `${base}?limit=1`, { auth: ivy.auth, headers: { accept: LFS } })
        assertSchema("http-lock-list-response", paged.body)
        assert.strictEqual(at(paged.body, "next_cursor"), "1")
        const next = yield* call("GET", `${base}?limit=1&cursor=1`, { auth: ivy.auth, headers: { accept: LFS } })
        assert.strictEqual(at(next.body, "locks", 0, "path"), "level.bin")
        assert.isUndefined(at(next.body, "next_cursor"))
        const anonymousList = yield* call("GET", base, { headers: { accept: LFS } })
        assert.strictEqual(anonymousList.status, 401)

        const verified = yield* call("POST", `${base}/verify`, { auth: ivy.auth, json: {} })
        assert.strictEqual(verified.status, 200, verified.text)
        assertSchema("http-lock-verify-response", verified.body)
        assert.deepStrictEqual((at(verified.body, "ours") as ReadonlyArray<unknown>).map((lock) => at(lock, "path")), ["level.bin"])
        assert.deepStrictEqual((at(verified.body, "theirs") as ReadonlyArray<unknown>).map((lock) => at(lock, "path")), ["art/hero.psd"])

        const deleteMessage = { force: false }
        assertSchema("http-lock-delete-request", deleteMessage)
        const refused = yield* call("POST", `${base}/${id}/unlock`, { auth: ivy.auth, json: deleteMessage })
        assert.strictEqual(refused.status, 403)
        const forced = yield* call("POST", `${base}/${id}/unlock`, { auth: hal.auth, json: { force: true } })
        assert.strictEqual(forced.status, 200, forced.text)
        assertSchema("http-lock-create-response", forced.body)
        const gone = yield* call("POST", `${base}/${id}/unlock`, { auth: hal.auth, json: { force: true } })
        assert.strictEqual(gone.status, 404)
        const nonsense = yield* call("POST", `${base}/abc/unlock`, { auth: hal.auth, json: {} })
        assert.strictEqual(nonsense.status, 404)
      }))

    it.effect("git-lfs-authenticate: a token bound to the repository, the operation and the account, rechecked on use", () =>
      Effect.gen(function*() {
        const jay = yield* createUser("jay")
        yield* createUser("kim")
        yield* createRepo(jay.auth, "tools", { private: true })
        yield* createRepo(jay.auth, "other", { private: true })
        const added = yield* request("PUT", "/api/v1/repos/jay/tools/collaborators/kim", { auth: jay.auth, json: { permission: "write" } })
        assert.strictEqual(added.status, 204)
        const users = yield* UserStore
        const kimUser = Option.getOrThrow(yield* users.findByName("kim"))
        const principal = { user: kimUser, method: "basic-password" as const, scopes: Option.none() }
        const authenticate = yield* LfsAuthenticate
        const granted = yield* authenticate.authenticate(signed(principal), "jay", "tools", "write")
        assert.strictEqual(granted.href, `${ROOT_URL}jay/tools.git/info/lfs`)
        const bearer = (granted.header["Authorization"] ?? "").replace(/^Bearer /, "")
        const item = object(32)
        assert.strictEqual((yield* upload("jay/tools", item, { bearer })).status, 200)
        // Bound to its repository.
        const elsewhere = yield* batch("jay/other", "download", [{ oid: item.oid, size: item.size }], { bearer })
        assert.strictEqual(elsewhere.status, 404)
        // A download token does not upload.
        const reading = yield* authenticate.authenticate(signed(principal), "jay", "tools", "read")
        const readBearer = (reading.header["Authorization"] ?? "").replace(/^Bearer /, "")
        assert.strictEqual((yield* upload("jay/tools", object(8), { bearer: readBearer })).status, 401)
        // Rechecked on use: kim loses write access, the upload token stops opening uploads.
        const demoted = yield* request("PUT", "/api/v1/repos/jay/tools/collaborators/kim", { auth: jay.auth, json: { permission: "read" } })
        assert.strictEqual(demoted.status, 204)
        assert.strictEqual((yield* upload("jay/tools", object(9), { bearer })).status, 403)
        // No token for what the account may not do.
        const refused = yield* Effect.flip(authenticate.authenticate(signed(principal), "jay", "other", "read"))
        assert.strictEqual(refused.refusal.kind, "not-found")
        const unknownToken = yield* batch("jay/tools", "download", [], { bearer: "kiln-lfs-0000" })
        assert.strictEqual(unknownToken.status, 401)

        // A read-only deploy key of the private repository: its token downloads, never uploads,
        // and stops opening anything once the key is removed.
        const key = yield* request("POST", "/api/v1/repos/jay/tools/keys", {
          auth: jay.auth,
          json: { title: "ci", key: makeKeyPair().publicKey, read_only: true }
        })
        assert.strictEqual(key.status, 201, key.text)
        const keyId = Number(at(key.body, "key_id"))
        const grant = Number(at(key.body, "id"))
        const tools = Number(at((yield* request("GET", "/api/v1/repos/jay/tools", { auth: jay.auth })).body, "id"))
        const asKey = yield* authenticate.authenticate(deployKey(keyId, [{ repositoryId: tools, readOnly: true }]), "jay", "tools", "read")
        const keyBearer = (asKey.header["Authorization"] ?? "").replace(/^Bearer /, "")
        const keyDownload = yield* batch("jay/tools", "download", [{ oid: item.oid, size: item.size }], { bearer: keyBearer })
        assert.strictEqual(keyDownload.status, 200, keyDownload.text)
        assert.isDefined(at(objectsOf(keyDownload.body)[0], "actions", "download"))
        const fetched = yield* call("GET", `/jay/tools.git/info/lfs/objects/${item.oid}`, { auth: { bearer: keyBearer } })
        assert.isTrue(fetched.bytes.equals(item.content))
        // Refused by the key's own grant, before the token's binding is even looked at.
        const keyUpload = yield* batch("jay/tools", "upload", [{ oid: item.oid, size: item.size }], { bearer: keyBearer })
        assert.strictEqual(keyUpload.status, 403)
        assert.deepStrictEqual(keyUpload.body, { message: "This deploy key is read-only: it cannot push." })
        const refusedUpload = yield* Effect.flip(
          authenticate.authenticate(deployKey(keyId, [{ repositoryId: tools, readOnly: true }]), "jay", "tools", "write")
        )
        assert.strictEqual(refusedUpload.refusal.kind, "forbidden")
        assert.strictEqual((yield* request("DELETE", `/api/v1/repos/jay/tools/keys/${grant}`, { auth: jay.auth })).status, 204)
        const afterRemoval = yield* batch("jay/tools", "download", [{ oid: item.oid, size: item.size }], { bearer: keyBearer })
        assert.strictEqual(afterRemoval.status, 401)
      }))

    it.effect("the collection removes objects unreferenced for a whole grace period, and nothing referenced", () =>
      Effect.gen(function*() {
        const lee = yield* createUser("lee")
        yield* createRepo(lee.auth, "temp")
        yield* createRepo(lee.auth, "keep")
        const doomed = object(100)
        const kept = object(200)
        assert.strictEqual((yield* upload("lee/temp", doomed, lee.auth)).status, 200)
        assert.strictEqual((yield* upload("lee/keep", kept, lee.auth)).status, 200)
        assert.strictEqual((yield* request("DELETE", "/api/v1/repos/lee/temp", { auth: lee.auth })).status, 204)
        const collection = yield* LfsCollection
        // Seen unreferenced: marked, kept for the grace period.
        assert.strictEqual(yield* collection.collect, 0)
        const config = yield* KilnConfig
        const path = (oid: string) => Path.join(config.dataDir, "lfs", oid.slice(0, 2), oid.slice(2, 4), oid.slice(4))
        assert.isTrue(Fs.existsSync(path(doomed.oid)))
        assert.isTrue(Fs.existsSync(path(kept.oid)))
      }))
  })

  const noGrace = { ...TestServer.testSettings().lfs, collectionGraceMillis: 0 }
  layer(TestServer.layer({ quotaEnforce: true, lfs: noGrace }), { timeout: "300 seconds" })("with quotas enforced", (it) => {
    it.effect("refuses uploads of an owner over quota with 413 quota exceeded, and still serves downloads", () =>
      Effect.gen(function*() {
        const max = yield* createUser("max")
        yield* createRepo(max.auth, "big")
        const stored = object(2000)
        assert.strictEqual((yield* upload("max/big", stored, max.auth)).status, 200)
        yield* adminCall("POST", "/admin/quota/groups", 201, { name: "lfs-1k", rules: [{ name: "lfs-1k", limit: 1000, subjects: ["size:git:lfs"] }] })
        yield* adminCall("PUT", "/admin/quota/groups/lfs-1k/users/max", 204)
        const next = object(10)
        const refused = yield* batch("max/big", "upload", [{ oid: next.oid, size: next.size }], max.auth)
        assert.strictEqual(refused.status, 413)
        assert.deepStrictEqual(refused.body, { message: "quota exceeded" })
        const put = yield* upload("max/big", next, max.auth)
        assert.strictEqual(put.status, 413)
        assert.deepStrictEqual(put.body, { message: "quota exceeded" })
        // Asking for what the repository has already adds nothing: answered.
        const present = yield* batch("max/big", "upload", [{ oid: stored.oid, size: stored.size }], max.auth)
        assert.strictEqual(present.status, 200)
        const down = yield* batch("max/big", "download", [{ oid: stored.oid, size: stored.size }], max.auth)
        assert.strictEqual(down.status, 200)
        // A rule on size:all covers LFS too.
        const nia = yield* createUser("nia")
        yield* createRepo(nia.auth, "all")
        yield* adminCall("POST", "/admin/quota/groups", 201, { name: "nothing", rules: [{ name: "nothing-at-all", limit: 0, subjects: ["size:all"] }] })
        yield* adminCall("PUT", "/admin/quota/groups/nothing/users/nia", 204)
        assert.strictEqual((yield* upload("nia/all", object(5), nia.auth)).status, 413)
      }))

    it.effect("the collection removes what nothing references once the grace period is over, and keeps the rest", () =>
      Effect.gen(function*() {
        const oli = yield* createUser("oli")
        yield* createRepo(oli.auth, "temp")
        yield* createRepo(oli.auth, "keep")
        const doomed = object(100)
        const kept = object(200)
        assert.strictEqual((yield* upload("oli/temp", doomed, oli.auth)).status, 200)
        assert.strictEqual((yield* upload("oli/keep", kept, oli.auth)).status, 200)
        assert.strictEqual((yield* request("DELETE", "/api/v1/repos/oli/temp", { auth: oli.auth })).status, 204)
        const config = yield* KilnConfig
        const path = (oid: string) => Path.join(config.dataDir, "lfs", oid.slice(0, 2), oid.slice(2, 4), oid.slice(4))
        const collection = yield* LfsCollection
        // This pass or the background one (due at once here, the test clock being at 0) removes it.
        yield* TestClock.withLive(collection.collect)
        const sql = yield* SqlClient.SqlClient
        assert.deepStrictEqual(yield* sql`SELECT oid FROM lfs_objects WHERE oid = ${doomed.oid}`, [])
        assert.isFalse(Fs.existsSync(path(doomed.oid)))
        assert.isTrue(Fs.existsSync(path(kept.oid)))
        // Uploaded again after its collection: stored anew.
        yield* createRepo(oli.auth, "again")
        assert.strictEqual((yield* upload("oli/again", doomed, oli.auth)).status, 200)
        assert.isTrue(Fs.existsSync(path(doomed.oid)))
        const whole = yield* call("GET", `/oli/again.git/info/lfs/objects/${doomed.oid}`, { auth: oli.auth })
        assert.isTrue(whole.bytes.equals(doomed.content))
      }))

    it.effect("the collection racing uploads of the object it would remove loses nothing", () =>
      Effect.gen(function*() {
        const pia = yield* createUser("pia")
        const quinn = yield* createUser("quinn")
        yield* createRepo(pia.auth, "first", { private: true })
        const item = object(256 * 1024)
        assert.strictEqual((yield* upload("pia/first", item, pia.auth)).status, 200)
        const collection = yield* LfsCollection
        const sql = yield* SqlClient.SqlClient
        const base = yield* baseUrl
        const config = yield* KilnConfig
        const file = Path.join(config.dataDir, "lfs", item.oid.slice(0, 2), item.oid.slice(2, 4), item.oid.slice(4))

        // An upload held half-way (by a caller who cannot read pia's repository, so the bytes are
        // received); meanwhile the object loses its last reference and the collection runs (on
        // the test clock, as the server's own fibers do): it is left alone.
        yield* createRepo(quinn.auth, "held")
        let release: () => void = () => undefined
        const released = new Promise<void>((resolve) => (release = resolve))
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(item.content.subarray(0, 1000))
            await released
            controller.enqueue(item.content.subarray(1000))
            controller.close()
          }
        })
        const init = Object.assign({ method: "PUT", body, headers: authHeader(quinn.auth) }, { duplex: "half" as const })
        const held = fetch(`${base}/quinn/held.git/info/lfs/objects/${item.oid}/${item.size}`, init)
        for (let waited = 0; (yield* sql`SELECT 1 FROM lfs_uploads WHERE oid = ${item.oid}`).length === 0; waited++) {
          assert.isBelow(waited, 1500, "the upload began")
          yield* TestClock.withLive(Effect.sleep("20 millis"))
        }
        assert.strictEqual((yield* request("DELETE", "/api/v1/repos/pia/first", { auth: pia.auth })).status, 204)
        yield* collection.collect
        assert.isTrue(Fs.existsSync(file), "kept while an upload of it is in flight")
        release()
        const answer = yield* Effect.promise(() => held)
        assert.strictEqual(answer.status, 200)

        // Uploads and passes of the collection at once, in every order they happen to take.
        for (let round = 0; round < 8; round++) {
          const repo = `race-${round}`
          yield* createRepo(pia.auth, repo)
          // Unreferenced again: only this round's upload may keep it.
          yield* sql`DELETE FROM lfs_references WHERE oid = ${item.oid}`
          const [uploaded] = yield* Effect.all([upload(`pia/${repo}`, item, pia.auth), collection.collect], {
            concurrency: "unbounded"
          })
          assert.strictEqual(uploaded.status, 200, uploaded.text)
          const back = yield* call("GET", `/pia/${repo}.git/info/lfs/objects/${item.oid}`, { auth: pia.auth })
          assert.strictEqual(back.status, 200, `round ${round}`)
          assert.isTrue(back.bytes.equals(item.content), `round ${round}`)
          yield* collection.collect
          assert.isTrue(Fs.existsSync(file), `round ${round}: a referenced object stays`)
        }
      }))
  })

  layer(TestServer.layer({ lfs: { ...TestServer.testSettings().lfs, enabled: false } }), { timeout: "120 seconds" })("disabled", (it) => {
    it.effect("KILN_LFS_ENABLED=false: the LFS paths name nothing (404)", () =>
      Effect.gen(function*() {
        const rae = yield* createUser("rae")
        yield* createRepo(rae.auth, "plain")
        const item = object(10)
        const asked = yield* batch("rae/plain", "upload", [{ oid: item.oid, size: item.size }], rae.auth)
        assert.strictEqual(asked.status, 404)
        assert.strictEqual((yield* upload("rae/plain", item, rae.auth)).status, 404)
      }))
  })
})
