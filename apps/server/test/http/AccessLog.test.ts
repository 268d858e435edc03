/**
 * The access log end to end: every request is one line on standard output, and no credential a
 * client puts in the query (Forgejo's `token`, `access_token`, `sudo`, any `authorization`) or in a
 * header is ever written.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { capturedStdout as captured } from "../support/CapturedOutput.ts"
import { admin, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

/** Standard output while `effect` runs. */
const capturedStdout = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.map(captured(effect), ({ output }) => output)

layer(TestServer.layer({ accessLog: true }), { timeout: "60 seconds" })("access log", (it) => {
  it.effect("redacts credential query values and never writes the Authorization header", () =>
    Effect.gen(function*() {
      const secrets = ["s3cr3t-token", "s3cr3t-access", "s3cr3t-sudo", "s3cr3t-authz", "s3cr3t-upper", "root-password"]
      const output = yield* capturedStdout(Effect.gen(function*() {
        yield* request("GET", "/api/v1/version?token=s3cr3t-token&page=2", { auth: admin })
        yield* request("GET", "/api/v1/user?access_token=s3cr3t-access&sudo=s3cr3t-sudo&limit=3", { auth: admin })
        yield* request("GET", "/api/v1/version?Authorization=s3cr3t-authz&TOKEN=s3cr3t-upper&q=kept")
        yield* request("GET", "/api/v1/version?%74oken=s3cr3t-token")
      }))
      const logged = output.split("\n").filter((line) => line.includes("\"message\":\"request\"")).map((line) => JSON.parse(line))
      const paths = logged.map((line) => line.path)
      assert.deepStrictEqual(paths, [
        "/api/v1/version?token=REDACTED&page=2",
        "/api/v1/user?access_token=REDACTED&sudo=REDACTED&limit=3",
        "/api/v1/version?Authorization=REDACTED&TOKEN=REDACTED&q=kept",
        "/api/v1/version?%74oken=REDACTED"
      ])
      for (const secret of [...secrets, Buffer.from("root:root-password").toString("base64")]) {
        assert.strictEqual(output.includes(secret), false, secret)
      }
    }))
})

layer(TestServer.layer({ accessLog: true, trustedProxies: ["127.0.0.1"] }), { timeout: "60 seconds" })("access log behind a proxy", (it) => {
  it.effect("records the client a trusted proxy forwarded for, not the proxy", () =>
    Effect.gen(function*() {
      const output = yield* capturedStdout(request("GET", "/api/v1/version?behind=proxy", { headers: { "x-forwarded-for": "203.0.113.77" } }))
      const logged = output.split("\n").filter((line) => line.includes("behind=proxy")).map((line) => JSON.parse(line))
      assert.deepStrictEqual(logged.map((line) => line.remote), ["203.0.113.77"])
    }))

  it.effect("records git's smart HTTP requests too, with the forwarded client", () =>
    Effect.gen(function*() {
      const path = "/root/nothing.git/info/refs?service=git-upload-pack&behind=git"
      let status = 0
      const output = yield* capturedStdout(Effect.map(
        request("GET", path, { headers: { "x-forwarded-for": "203.0.113.78" } }),
        (answer) => void (status = answer.status)
      ))
      const logged = output.split("\n").filter((line) => line.includes("behind=git")).map((line) => JSON.parse(line))
      assert.deepStrictEqual(logged.map((line) => [line.method, line.path, line.status, line.remote]), [["GET", path, status, "203.0.113.78"]])
    }))
})
