import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

describe("GET /signing-key.gpg", () => {
  layer(TestServer.layer({ signingKey: "generate", signingName: "Kiln Test", signingEmail: "signer@kiln.test" }), {
    timeout: "120 seconds"
  })("with a generated key", (it) => {
    it.effect("serves the armored public key to anyone, the same on every request", () =>
      Effect.gen(function*() {
        const first = yield* request("GET", "/api/v1/signing-key.gpg")
        assert.strictEqual(first.status, 200)
        assert.match(first.headers.get("content-type") ?? "", /^text\/plain/)
        assert.match(first.text, /^-----BEGIN PGP PUBLIC KEY BLOCK-----\n/)
        assert.include(first.text, "-----END PGP PUBLIC KEY BLOCK-----")
        assert.notInclude(first.text, "PRIVATE")
        const second = yield* request("GET", "/api/v1/signing-key.gpg")
        assert.strictEqual(second.text, first.text)
      }))
  })

  layer(TestServer.layer({ signingKey: "none" }), { timeout: "120 seconds" })("with signing off", (it) => {
    it.effect("answers 200 with an empty body, as Forgejo", () =>
      Effect.gen(function*() {
        const response = yield* request("GET", "/api/v1/signing-key.gpg")
        assert.strictEqual(response.status, 200)
        assert.strictEqual(response.text, "")
      }))
  })
})
