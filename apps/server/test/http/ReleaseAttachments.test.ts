/**
 * Release attachments end to end: multipart and raw uploads streamed to disk, downloads compared
 * byte for byte (whole and ranged), the size limit, interrupted uploads leaving nothing, access,
 * edits and deletion, and the owner's quota usage and attachment list following files in and out.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import { request as httpRequest } from "node:http"
import * as Path from "node:path"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { at, baseUrl, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const MAX = 256 * 1024

const authHeader = (auth: TestServer.Auth): Record<string, string> =>
  auth.basic === undefined ? {} : { authorization: `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString("base64")}` }

/** Sends a body as is (fetch streams it with its length). */
const send = (method: string, path: string, body: string | Uint8Array | FormData, auth?: TestServer.Auth, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, { method, body, headers: { ...(auth === undefined ? {} : authHeader(auth)), ...headers }, redirect: "manual" }))
    const bytes = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
    const text = new TextDecoder().decode(bytes)
    let json: unknown = undefined
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, bytes, body: json, text }
  })

const download = (path: string, auth?: TestServer.Auth, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const url = path.startsWith("http") ? path.replace(ROOT_URL, `${base}/`) : `${base}${path}`
    const response = yield* Effect.promise(() =>
      fetch(url, { headers: { ...(auth === undefined ? {} : authHeader(auth)), ...headers }, redirect: "manual" }))
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(yield* Effect.promise(() => response.arrayBuffer())) }
  })

const filesUnder = (directory: string): Array<string> =>
  Fs.existsSync(directory)
    ? Fs.readdirSync(directory, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name)
    : []

const dataDir = Effect.map(Effect.service(KilnConfig), (config) => config.dataDir)

const setUp = (owner: string, isPrivate = false) =>
  Effect.gen(function*() {
    const user = yield* createUser(owner)
    const repo = yield* request("POST", "/api/v1/user/repos", { auth: user.auth, json: { name: "app", auto_init: true, private: isPrivate } })
    assert.strictEqual(repo.status, 201, repo.text)
    const release = yield* request("POST", `/api/v1/repos/${owner}/app/releases`, { auth: user.auth, json: { tag_name: "v1.0" } })
    assert.strictEqual(release.status, 201, release.text)
    return { user, ownerId: Number(at(user.user, "id")), releaseId: Number(at(release.body, "id")), assets: `/api/v1/repos/${owner}/app/releases/${at(release.body, "id")}/assets` }
  })

layer(TestServer.layer({ attachmentMaxSize: MAX }), { timeout: "180 seconds" })("release attachments", (it) => {
  it.effect("stores multipart and raw uploads and serves them back byte for byte, whole and by range", () =>
    Effect.gen(function*() {
      const { user, assets } = yield* setUp("att-owner")
      const content = randomBytes(200 * 1024)
      const form = new FormData()
      form.append("attachment", new Blob([content]), "data.bin")
      const uploaded = yield* send("POST", assets, form, user.auth)
      assert.strictEqual(uploaded.status, 201, uploaded.text)
      assert.deepStrictEqual(Object.keys(uploaded.body as object), [
        "id", "name", "size", "download_count", "created_at", "uuid", "browser_download_url", "type"
      ])
      assert.strictEqual(at(uploaded.body, "name"), "data.bin")
      assert.strictEqual(at(uploaded.body, "size"), content.length)
      assert.strictEqual(at(uploaded.body, "type"), "attachment")
      const uuid = String(at(uploaded.body, "uuid"))
      assert.strictEqual(at(uploaded.body, "browser_download_url"), `${ROOT_URL}attachments/${uuid}`)

      const raw = yield* send("POST", `${assets}?name=notes%20v1.txt`, "hello, world\n", user.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual(raw.status, 201, raw.text)
      assert.strictEqual(at(raw.body, "name"), "notes v1.txt")

      const whole = yield* download(`/attachments/${uuid}`)
      assert.strictEqual(whole.status, 200)
      assert.deepStrictEqual(Buffer.from(whole.bytes), content)
      assert.strictEqual(whole.headers.get("content-length"), String(content.length))
      assert.strictEqual(whole.headers.get("content-type"), "application/octet-stream")
      assert.strictEqual(whole.headers.get("content-disposition"), "inline; filename=\"data.bin\"; filename*=UTF-8''data.bin")

      const part = yield* download(`/attachments/${uuid}`, undefined, { range: "bytes=1000-1999" })
      assert.strictEqual(part.status, 206)
      assert.strictEqual(part.headers.get("content-range"), `bytes 1000-1999/${content.length}`)
      assert.deepStrictEqual(Buffer.from(part.bytes), content.subarray(1000, 2000))
      const beyond = yield* download(`/attachments/${uuid}`, undefined, { range: `bytes=${content.length}-` })
      assert.strictEqual(beyond.status, 416)

      // In the release, names are unique: the JSON names the file under the tag.
      const release = yield* request("GET", assets.replace(/\/assets$/, ""), { auth: user.auth })
      const listed = at(release.body, "assets") as Array<unknown>
      assert.deepStrictEqual(listed.map((a) => at(a, "name")), ["data.bin", "notes v1.txt"])
      assert.strictEqual(at(listed[1], "browser_download_url"), `${ROOT_URL}att-owner/app/releases/download/v1.0/notes%20v1.txt`)
      const byName = yield* download(String(at(listed[1], "browser_download_url")))
      assert.strictEqual(byName.status, 200)
      assert.strictEqual(new TextDecoder().decode(byName.bytes), "hello, world\n")
      assert.strictEqual(byName.headers.get("content-type"), "text/plain; charset=utf-8")

      const counted = yield* request("GET", `${assets}/${at(uploaded.body, "id")}`, { auth: user.auth })
      // Every download request counts, a refused range included (Forgejo counts before serving).
      assert.strictEqual(at(counted.body, "download_count"), 3)
    }))

  it.effect("refuses files over KILN_ATTACHMENT_MAX_SIZE with 413 and keeps nothing", () =>
    Effect.gen(function*() {
      const { user, assets } = yield* setUp("att-limit")
      const before = filesUnder(Path.join(yield* dataDir, "attachments")).length
      const declared = yield* send("POST", `${assets}?name=big.bin`, randomBytes(2 * MAX), user.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual(declared.status, 413)
      const form = new FormData()
      form.append("attachment", new Blob([randomBytes(MAX + 1)]), "big.bin")
      const multipart = yield* send("POST", assets, form, user.auth)
      assert.strictEqual(multipart.status, 413, multipart.text)
      const exact = yield* send("POST", `${assets}?name=exact.bin`, randomBytes(MAX), user.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual(exact.status, 201)
      const listed = yield* request("GET", assets, { auth: user.auth })
      assert.deepStrictEqual((listed.body as Array<unknown>).map((a) => at(a, "name")), ["exact.bin"])
      assert.strictEqual(filesUnder(Path.join(yield* dataDir, "attachments")).length, before + 1)
      assert.deepStrictEqual(filesUnder(Path.join(yield* dataDir, "tmp")), [])
    }))

  it.effect("leaves no file and no row when the client goes away mid-upload", () =>
    Effect.gen(function*() {
      const { user, assets } = yield* setUp("att-cut")
      const before = filesUnder(Path.join(yield* dataDir, "attachments")).length
      const base = new URL(yield* baseUrl)
      yield* Effect.promise(() =>
        new Promise<void>((resolve) => {
          const outgoing = httpRequest({
            host: base.hostname,
            port: base.port,
            method: "POST",
            path: `${assets}?name=cut.bin`,
            headers: { ...authHeader(user.auth), "content-type": "application/octet-stream", "content-length": String(MAX) }
          })
          outgoing.on("error", () => resolve())
          outgoing.write(randomBytes(64 * 1024), () => setTimeout(() => {
            outgoing.destroy()
            resolve()
          }, 300))
        }))
      // The server notices the reset and unwinds; give it a moment.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 500)))
      const listed = yield* request("GET", assets, { auth: user.auth })
      assert.deepStrictEqual(listed.body, [])
      assert.strictEqual(filesUnder(Path.join(yield* dataDir, "attachments")).length, before)
      assert.deepStrictEqual(filesUnder(Path.join(yield* dataDir, "tmp")), [])
    }))

  it.effect("needs write access to upload, edit and delete; read access to list and download; hides private ones", () =>
    Effect.gen(function*() {
      const { user, assets } = yield* setUp("att-access", true)
      const stranger = yield* createUser("att-stranger")
      const uploaded = yield* send("POST", `${assets}?name=a.txt`, "secret", user.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual(uploaded.status, 201)
      const uuid = String(at(uploaded.body, "uuid"))
      const anonymousUpload = yield* send("POST", `${assets}?name=b.txt`, "x", undefined, { "content-type": "application/octet-stream" })
      assert.strictEqual(anonymousUpload.status, 404)
      const strangerUpload = yield* send("POST", `${assets}?name=b.txt`, "x", stranger.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual(strangerUpload.status, 404)
      assert.strictEqual((yield* download(`/attachments/${uuid}`)).status, 404)
      assert.strictEqual((yield* download(`/attachments/${uuid}`, stranger.auth)).status, 404)
      assert.strictEqual((yield* download(`/attachments/${uuid}`, user.auth)).status, 200)

      // A public repository: readers list and download, but may not write.
      const { user: publicOwner, assets: publicAssets } = yield* setUp("att-public")
      const file = yield* send("POST", `${publicAssets}?name=p.txt`, "public", publicOwner.auth, { "content-type": "application/octet-stream" })
      const strangerWrite = yield* send("POST", `${publicAssets}?name=q.txt`, "x", stranger.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual(strangerWrite.status, 403)
      const anonymousWrite = yield* send("POST", `${publicAssets}?name=q.txt`, "x", undefined, { "content-type": "application/octet-stream" })
      assert.strictEqual(anonymousWrite.status, 401)
      assert.strictEqual((yield* request("GET", publicAssets)).status, 200)
      assert.strictEqual((yield* download(`/attachments/${at(file.body, "uuid")}`)).status, 200)
      const strangerDelete = yield* request("DELETE", `${publicAssets}/${at(file.body, "id")}`, { auth: stranger.auth })
      assert.strictEqual(strangerDelete.status, 403)

      const edited = yield* request("PATCH", `${publicAssets}/${at(file.body, "id")}`, { auth: publicOwner.auth, json: { name: "renamed.txt" } })
      assert.strictEqual(edited.status, 201)
      assert.strictEqual(at(edited.body, "name"), "renamed.txt")
      const notExternal = yield* request("PATCH", `${publicAssets}/${at(file.body, "id")}`, {
        auth: publicOwner.auth,
        json: { browser_download_url: "https://example.com/x" }
      })
      assert.strictEqual(notExternal.status, 400)
      assert.strictEqual(at(notExternal.body, "message"), "existing attachment is not external")
      const missingName = yield* send("POST", publicAssets, "x", publicOwner.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual(missingName.status, 400)
      assert.strictEqual(at(missingName.body, "message"), "Missing 'name' parameter")
    }))

  it.effect("moves the owner's release usage and attachment list as files come and go", () =>
    Effect.gen(function*() {
      const quota = yield* QuotaStore
      const { user, ownerId, assets, releaseId } = yield* setUp("att-quota")
      const page = { page: 1, limit: 30 }
      const reposOnly = (yield* quota.usageOf(ownerId)).attachmentsReleases
      assert.strictEqual(reposOnly, 0)
      const small = yield* send("POST", `${assets}?name=small.bin`, randomBytes(1000), user.auth, { "content-type": "application/octet-stream" })
      const large = yield* send("POST", `${assets}?name=large.bin`, randomBytes(5000), user.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual((yield* quota.usageOf(ownerId)).attachmentsReleases, 6000)
      const listed = yield* quota.listAttachments(ownerId, page)
      assert.strictEqual(listed.total, 2)
      assert.deepStrictEqual(listed.items.map((item) => [item.name, item.size]), [["large.bin", 5000], ["small.bin", 1000]])
      assert.deepStrictEqual(listed.items[0]?.container, { _tag: "Release", releaseId, tagName: "v1.0" })
      assert.deepStrictEqual(listed.items[0]?.repository, { owner: "att-quota", name: "app" })

      const deleted = yield* request("DELETE", `${assets}/${at(large.body, "id")}`, { auth: user.auth })
      assert.strictEqual(deleted.status, 204)
      assert.strictEqual((yield* quota.usageOf(ownerId)).attachmentsReleases, 1000)
      assert.strictEqual((yield* download(`/attachments/${at(large.body, "uuid")}`, user.auth)).status, 404)
      const stillThere = yield* download(`/attachments/${at(small.body, "uuid")}`, user.auth)
      assert.strictEqual(stillThere.bytes.length, 1000)

      const removed = yield* request("DELETE", assets.replace(/\/assets$/, ""), { auth: user.auth })
      assert.strictEqual(removed.status, 204)
      assert.strictEqual((yield* quota.usageOf(ownerId)).attachmentsReleases, 0)
      assert.deepStrictEqual(yield* quota.listAttachments(ownerId, page), { items: [], total: 0 })
      assert.strictEqual((yield* download(`/attachments/${at(small.body, "uuid")}`, user.auth)).status, 404)
    }))
  it.effect("hides a draft and its files from readers on every route: by id, by tag, assets, both downloads", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("att-draft")
      const reader = yield* createUser("att-draft-reader")
      const repo = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "app", auto_init: true } })
      assert.strictEqual(repo.status, 201, repo.text)
      const draft = yield* request("POST", "/api/v1/repos/att-draft/app/releases", { auth: owner.auth, json: { tag_name: "v9", draft: true } })
      assert.strictEqual(draft.status, 201, draft.text)
      const releasePath = `/api/v1/repos/att-draft/app/releases/${at(draft.body, "id")}`
      const file = yield* send("POST", `${releasePath}/assets?name=embargo.bin`, "embargoed", owner.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual(file.status, 201, file.text)
      const apiRoutes = [releasePath, "/api/v1/repos/att-draft/app/releases/tags/v9", `${releasePath}/assets`, `${releasePath}/assets/${at(file.body, "id")}`]
      const downloads = [`/attachments/${at(file.body, "uuid")}`, "/att-draft/app/releases/download/v9/embargo.bin"]
      for (const auth of [undefined, reader.auth]) {
        for (const path of apiRoutes) {
          const hidden = yield* request("GET", path, { auth })
          assert.strictEqual(hidden.status, 404, `${path}: ${hidden.text}`)
          assert.strictEqual(hidden.text.includes("embargo"), false)
        }
        for (const path of downloads) assert.strictEqual((yield* download(path, auth)).status, 404, path)
      }
      for (const path of apiRoutes) assert.strictEqual((yield* request("GET", path, { auth: owner.auth })).status, 200, path)
      for (const path of downloads) assert.strictEqual((yield* download(path, owner.auth)).status, 200, path)
    }))

  it.effect("downloads hold tokens to the API's scopes: read:repository, and public repositories only for public-only", () =>
    Effect.gen(function*() {
      const { user, assets } = yield* setUp("att-scoped", true)
      const uploaded = yield* send("POST", `${assets}?name=secret.bin`, "secret", user.auth, { "content-type": "application/octet-stream" })
      assert.strictEqual(uploaded.status, 201, uploaded.text)
      const paths = [`/attachments/${at(uploaded.body, "uuid")}`, "/att-scoped/app/releases/download/v1.0/secret.bin"]
      const tokenAuth = (secret: string): Record<string, string> => ({ authorization: `token ${secret}` })
      const basicToken = (secret: string): Record<string, string> => ({ authorization: `Basic ${Buffer.from(`att-scoped:${secret}`).toString("base64")}` })
      const misc = yield* TestServer.createToken(user.auth, "att-scoped", "misc", ["read:misc"])
      const publicOnly = yield* TestServer.createToken(user.auth, "att-scoped", "public", ["public-only", "read:repository"])
      const reader = yield* TestServer.createToken(user.auth, "att-scoped", "reader", ["read:repository"])
      for (const path of paths) {
        for (const headers of [tokenAuth(misc), basicToken(misc)]) {
          const refused = yield* download(path, undefined, headers)
          assert.strictEqual(refused.status, 403, path)
          assert.deepStrictEqual(JSON.parse(new TextDecoder().decode(refused.bytes)), {
            message: "token does not have at least one of required scope(s): [read:repository]",
            url: `${ROOT_URL}api/swagger`
          })
        }
        const limited = yield* download(path, undefined, tokenAuth(publicOnly))
        assert.strictEqual(limited.status, 403, path)
        assert.strictEqual(JSON.parse(new TextDecoder().decode(limited.bytes)).message, "token scope is limited to public repos")
        const allowed = yield* download(path, undefined, tokenAuth(reader))
        assert.strictEqual(allowed.status, 200, path)
        assert.strictEqual(new TextDecoder().decode(allowed.bytes), "secret")
      }
    }))
})
