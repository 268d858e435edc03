/**
 * Review finding 21 and issue 27: each route reads its body itself, after routing, authentication
 * and its gates, with its own parser and limit; uploads are stored as sent whatever their type
 * (`curl --data-binary` sends `application/x-www-form-urlencoded`); no error repeats the body.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, at, baseUrl, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const LIMIT = 64 * 1024

const basicHeader = (auth: TestServer.Auth): Record<string, string> =>
  auth.basic === undefined ? {} : { authorization: `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString("base64")}` }

/** Sends bytes as they are, with the given headers (none added). */
const sendBytes = (method: string, path: string, body: Uint8Array | undefined, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }), redirect: "manual" }))
    const bytes = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
    const text = new TextDecoder().decode(bytes)
    let json: unknown = undefined
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, bytes, text, body: json }
  })

/** Bytes a form parser would choke on or rewrite: separators, escapes, a NUL, invalid UTF-8. */
const awkwardBytes = () => {
  const text = Buffer.from("a&a&a=b&%zz&%00&name=x+y\u0000&", "utf8")
  const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256))
  return new Uint8Array(Buffer.concat([text, binary, text]))
}

layer(TestServer.layer({ maxBodySize: LIMIT }), { timeout: "180 seconds" })("request bodies", (it) => {
  it.effect("are read only after authentication and the route's gates", () =>
    Effect.gen(function*() {
      const user = yield* createUser("gated")
      const nul = { username: "a\u0000b", email: "x@example.com", password: "secret-password" }
      // Before, the body was checked router-wide: 422 for anyone, before the gate said who may call.
      const anonymous = yield* request("POST", "/api/v1/admin/users", { json: nul })
      assert.strictEqual(anonymous.status, 401, anonymous.text)
      const anonymousForm = yield* request("POST", "/api/v1/admin/users", { form: nul })
      assert.strictEqual(anonymousForm.status, 401, anonymousForm.text)
      const notAdmin = yield* request("POST", "/api/v1/admin/users", { auth: user.auth, json: nul })
      assert.strictEqual(notAdmin.status, 403, notAdmin.text)
      const tooDeep = yield* request("POST", "/api/v1/orgs", { body: `{"username":${"[".repeat(40)}${"]".repeat(40)}}` })
      assert.strictEqual(tooDeep.status, 401, tooDeep.text)
      // The route's own reader refuses what it cannot store, and too deep a body.
      const byAdmin = yield* request("POST", "/api/v1/admin/users", { auth: admin, json: nul })
      assert.deepStrictEqual([byAdmin.status, byAdmin.body], [422, { message: "[Username]: Invalid", url: errorUrl }])
      const formByAdmin = yield* request("POST", "/api/v1/admin/users", { auth: admin, form: nul })
      assert.deepStrictEqual([formByAdmin.status, formByAdmin.body], [422, { message: "[Username]: Invalid", url: errorUrl }])
      const deepByUser = yield* request("POST", "/api/v1/user/repos", { auth: user.auth, body: `{"name":${"[".repeat(40)}${"]".repeat(40)}}` })
      assert.deepStrictEqual([deepByUser.status, deepByUser.body], [422, { message: "[]: Invalid", url: errorUrl }])
      // A raw handler parses any body as JSON: the scan does not go by the type.
      const deepPlain = yield* request("POST", "/api/v1/admin/quota/groups", {
        auth: admin,
        body: `{"name":${"[".repeat(25_000)}${"]".repeat(25_000)}}`,
        contentType: "text/plain"
      })
      assert.deepStrictEqual([deepPlain.status, deepPlain.body], [422, { message: "[]: Invalid", url: errorUrl }])
      const multipart = yield* sendBytes(
        "POST",
        "/api/v1/user/repos",
        new TextEncoder().encode("--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nx\u0000y\r\n--b--\r\n"),
        { ...basicHeader(user.auth), "content-type": "multipart/form-data; boundary=b" }
      )
      assert.deepStrictEqual([multipart.status, multipart.body], [422, { message: "[Name]: Invalid", url: errorUrl }])
      const fields = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join("&")
      const manyFields = yield* request("POST", "/api/v1/user/repos", { auth: user.auth, body: fields, contentType: "application/x-www-form-urlencoded" })
      assert.strictEqual(manyFields.status, 413, manyFields.text)
      assert.strictEqual((yield* request("GET", "/api/v1/user/repos", { auth: user.auth })).text, "[]")
    }))

  it.effect("store uploads as sent, whatever their type (curl --data-binary sends a form type)", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("curler")
      const auth = basicHeader(owner.auth)
      const content = awkwardBytes()
      // Larger than the option limit: an upload has the attachment limit.
      const large = new Uint8Array(LIMIT * 3).fill(0x26)
      for (const [index, [type, bytes]] of ([
        ["application/x-www-form-urlencoded", content],
        ["application/json", content],
        [undefined, content],
        ["application/x-www-form-urlencoded", large]
      ] as const).entries()) {
        const headers = { ...auth, ...(type === undefined ? {} : { "content-type": type }) }
        const path = `/api/packages/curler/generic/tool/1.0.${index}/tool.bin`
        const put = yield* sendBytes("PUT", path, bytes, headers)
        assert.strictEqual(put.status, 201, `${type}: ${put.text.slice(0, 200)}`)
        const got = yield* sendBytes("GET", path, undefined, auth)
        assert.strictEqual(got.status, 200)
        assert.deepStrictEqual(Buffer.from(got.bytes), Buffer.from(bytes))
      }

      const repo = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "app", auto_init: true } })
      assert.strictEqual(repo.status, 201, repo.text)
      const release = yield* request("POST", "/api/v1/repos/curler/app/releases", { auth: owner.auth, json: { tag_name: "v1" } })
      const assets = `/api/v1/repos/curler/app/releases/${at(release.body, "id")}/assets`
      for (const [index, [type, bytes]] of ([
        ["application/x-www-form-urlencoded", content],
        ["application/json", content],
        ["application/x-www-form-urlencoded", large]
      ] as const).entries()) {
        const uploaded = yield* sendBytes("POST", `${assets}?name=tool-${index}.bin`, bytes, { ...auth, "content-type": type })
        assert.strictEqual(uploaded.status, 201, `${type}: ${uploaded.text.slice(0, 200)}`)
        const downloaded = yield* sendBytes("GET", `/attachments/${at(uploaded.body, "uuid")}`, undefined, auth)
        assert.deepStrictEqual(Buffer.from(downloaded.bytes), Buffer.from(bytes))
      }
      // A streamed form's name is checked before the file is received.
      // (A NUL in a part's header is the multipart parser's to refuse: 400, the body cannot be read.)
      for (const [part, name, status, message] of [
        ["name=\"name\"", "a\u0000b", 422, "[Name]: Invalid"],
        ["name=\"attachment\"; filename=\"a\u0000b\"", "file", 400, "the request body could not be read"]
      ] as const) {
        const body = `--b\r\nContent-Disposition: form-data; ${part}\r\n\r\n${name}\r\n` +
          "--b\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"f.bin\"\r\n\r\ndata\r\n--b--\r\n"
        const refused = yield* sendBytes("POST", assets, new TextEncoder().encode(body), { ...auth, "content-type": "multipart/form-data; boundary=b" })
        assert.deepStrictEqual([refused.status, refused.body], [status, { message, url: errorUrl }], part)
      }
      const listed = yield* request("GET", assets, { auth: owner.auth })
      assert.strictEqual((listed.body as ReadonlyArray<unknown>).length, 3)
    }), 240_000)

  it.effect("never repeat the body in an error message", () =>
    Effect.gen(function*() {
      const secret = "SECRET-BODY-BYTES"
      const cases: ReadonlyArray<readonly [string, string | undefined, number, string]> = [
        [`{"${secret}\\u0000":1}`, "application/json", 422, "[]: Invalid"],
        [`{"${secret}":"\\u0000"}`, "application/json", 422, "[]: Invalid"],
        [`{"email":"${secret}\\ud800"}`, "application/json", 422, "[Email]: Invalid"],
        [`{"email":"${secret}\\ud800"}`, undefined, 422, "[Email]: Invalid"],
        [`${secret}%00=1`, "application/x-www-form-urlencoded", 422, "[]: Invalid"],
        [`email=${secret}%00`, "application/x-www-form-urlencoded", 422, "[Email]: Invalid"],
        [secret, "application/json", 422, "[]: invalid character 'S' looking for beginning of value"],
        [`{"username":"${secret}`, "application/json", 422, "[]: unexpected EOF"],
        [secret, "application/x-secret", 415, "Unsupported content-type: application/x-secret"],
        [secret.repeat(LIMIT / secret.length + 1), "application/json", 413, `request body is larger than ${LIMIT} bytes`]
      ]
      for (const [body, contentType, status, message] of cases) {
        const answer = yield* sendBytes("POST", "/api/v1/admin/users", new TextEncoder().encode(body), {
          ...basicHeader(admin),
          ...(contentType === undefined ? {} : { "content-type": contentType })
        })
        assert.deepStrictEqual([answer.status, answer.body], [status, { message, url: errorUrl }], body.slice(0, 80))
        assert.notInclude(answer.text, "SECRET")
      }
    }))
})
