/**
 * Review findings 19 and 28: a request another site makes a browser send, with the Basic
 * credentials the browser cached, is refused (403 in Forgejo's error shape) and changes nothing,
 * whatever its body: a form, text/plain, JSON, a body without a type (which HttpApi reads as JSON),
 * or none. The same request from the site itself, from a non-browser client, or with a token goes
 * through.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { at, baseUrl, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const refusal = { message: "cross-site requests with browser credentials are not allowed", url: errorUrl }

/** What `fetch(url, {method, mode: "no-cors", credentials: "include", body: new Blob([json])})` sends: no Content-Type. */
const untyped = (method: string, path: string, auth: TestServer.Auth, body: string | undefined, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const basic = auth.basic === undefined ? {} : { authorization: `Basic ${btoa(`${auth.basic.username}:${auth.basic.password}`)}` }
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, {
        method,
        headers: { ...basic, ...headers },
        ...(body === undefined ? {} : { body: new Blob([body]) })
      }))
    const text = yield* Effect.promise(() => response.text())
    return { status: response.status, text, type: response.headers.get("content-type") }
  })

layer(TestServer.layer(), { timeout: "120 seconds" })("cross-site requests", (it) => {
  it.effect("refuses a cross-site request with Basic credentials, whatever its body, and changes nothing", () =>
    Effect.gen(function*() {
      const victim = yield* createUser("victim")
      const markers: ReadonlyArray<Record<string, string>> = [
        { "sec-fetch-site": "cross-site" },
        { origin: "https://evil.example" },
        { origin: "null" },
        // The right host on another scheme or port is another origin.
        { origin: "https://kiln.test" }
      ]
      for (const [index, headers] of markers.entries()) {
        const response = yield* request("POST", "/api/v1/user/repos", { auth: victim.auth, form: { name: `csrf-${index}` }, headers })
        assert.strictEqual(response.status, 403, JSON.stringify(headers))
        assert.strictEqual(response.headers.get("content-type"), "application/json;charset=utf-8")
        assert.deepStrictEqual(response.body, refusal)
      }
      const multipart = yield* request("POST", "/api/v1/user/repos", {
        auth: victim.auth,
        body: "--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\ncsrf-multipart\r\n--b--\r\n",
        contentType: "multipart/form-data; boundary=b",
        headers: { "sec-fetch-site": "cross-site" }
      })
      assert.strictEqual(multipart.status, 403)
      const plain = yield* request("POST", "/api/v1/markdown/raw", {
        auth: victim.auth,
        body: "# hi",
        contentType: "text/plain",
        headers: { origin: "https://evil.example" }
      })
      assert.strictEqual(plain.status, 403)
      const token = yield* request("POST", "/api/v1/users/victim/tokens", {
        auth: victim.auth,
        form: { name: "stolen" },
        headers: { "sec-fetch-site": "cross-site", origin: "https://evil.example" }
      })
      assert.strictEqual(token.status, 403)
      // Finding 28: JSON, typed or not, and a request without a body are refused the same way.
      const json = yield* request("POST", "/api/v1/user/repos", {
        auth: victim.auth,
        json: { name: "csrf-json" },
        headers: { "sec-fetch-site": "cross-site" }
      })
      assert.deepStrictEqual([json.status, json.body], [403, refusal])
      const blob = yield* untyped("POST", "/api/v1/user/repos", victim.auth, JSON.stringify({ name: "csrf-blob" }), {
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site"
      })
      assert.strictEqual(blob.type, "application/json;charset=utf-8")
      assert.deepStrictEqual([blob.status, JSON.parse(blob.text)], [403, refusal])
      const kept = yield* request("POST", "/api/v1/user/repos", { auth: victim.auth, json: { name: "kept" } })
      assert.strictEqual(kept.status, 201, kept.text)
      const deletion = yield* untyped("DELETE", "/api/v1/repos/victim/kept", victim.auth, undefined, { origin: "https://evil.example" })
      assert.deepStrictEqual([deletion.status, JSON.parse(deletion.text)], [403, refusal])
      assert.strictEqual((yield* request("GET", "/api/v1/repos/victim/kept", { auth: victim.auth })).status, 200)
      yield* request("DELETE", "/api/v1/repos/victim/kept", { auth: victim.auth })

      const repos = yield* request("GET", "/api/v1/user/repos", { auth: victim.auth })
      assert.deepStrictEqual(repos.body, [])
      const tokens = yield* request("GET", "/api/v1/users/victim/tokens", { auth: victim.auth })
      assert.deepStrictEqual(tokens.body, [])
    }))

  it.effect("lets same-site requests, non-browser clients and tokens through", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("owner")
      const sameSite = yield* request("POST", "/api/v1/user/repos", {
        auth: owner.auth,
        form: { name: "same-site" },
        headers: { origin: "http://kiln.test", "sec-fetch-site": "same-origin" }
      })
      assert.strictEqual(sameSite.status, 201, sameSite.text)
      const client = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, form: { name: "cli" } })
      assert.strictEqual(client.status, 201, client.text)
      const json = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "json" } })
      assert.strictEqual(json.status, 201, json.text)
      const sameSiteBlob = yield* untyped("POST", "/api/v1/user/repos", owner.auth, JSON.stringify({ name: "blob" }), {
        origin: "http://kiln.test",
        "sec-fetch-site": "same-origin"
      })
      assert.strictEqual(sameSiteBlob.status, 201, sameSiteBlob.text)
      const created = yield* request("POST", "/api/v1/users/owner/tokens", { auth: owner.auth, json: { name: "t", scopes: ["all"] } })
      const withToken = yield* request("POST", "/api/v1/user/repos", {
        auth: { token: String(at(created.body, "sha1")) },
        form: { name: "with-token" },
        headers: { "sec-fetch-site": "cross-site" }
      })
      assert.strictEqual(withToken.status, 201, withToken.text)
      const read = yield* request("GET", "/api/v1/user/repos", { auth: owner.auth, headers: { "sec-fetch-site": "cross-site" } })
      assert.strictEqual(read.status, 200)
    }))

  it.effect("refuses a cross-site push over smart HTTP with Basic credentials", () =>
    Effect.gen(function*() {
      const pusher = yield* createUser("pusher")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: pusher.auth, json: { name: "target" } })
      assert.strictEqual(created.status, 201, created.text)
      // What a page's `fetch` of git's own endpoint would send: a body git would read as commands.
      const pushed = yield* request("POST", "/pusher/target.git/git-receive-pack", {
        auth: pusher.auth,
        body: "0000",
        contentType: "application/x-git-receive-pack-request",
        headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" }
      })
      assert.deepStrictEqual([pushed.status, pushed.body], [403, refusal])
    }))
})
