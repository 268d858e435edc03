/**
 * Review finding 19: a form another site makes a browser submit, with the Basic credentials the
 * browser cached, is refused (403 in Forgejo's error shape) and changes nothing; the same request
 * from the site itself, from a non-browser client, or with a token goes through.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const refusal = { message: "cross-site requests with browser credentials are not allowed", url: errorUrl }

layer(TestServer.layer(), { timeout: "120 seconds" })("cross-site requests", (it) => {
  it.effect("refuses a cross-site form with Basic credentials and creates nothing", () =>
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

      const repos = yield* request("GET", "/api/v1/user/repos", { auth: victim.auth })
      assert.deepStrictEqual(repos.body, [])
      const tokens = yield* request("GET", "/api/v1/users/victim/tokens", { auth: victim.auth })
      assert.deepStrictEqual(tokens.body, [])
    }))

  it.effect("lets same-site forms, non-browser clients, JSON bodies and tokens through", () =>
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
      // JSON from another origin needs a CORS preflight, which the server never grants.
      const json = yield* request("POST", "/api/v1/user/repos", {
        auth: owner.auth,
        json: { name: "json" },
        headers: { "sec-fetch-site": "cross-site" }
      })
      assert.strictEqual(json.status, 201, json.text)
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
})
