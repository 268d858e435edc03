/**
 * Kiln mounted in another service: as a route of an Effect HttpRouter beside the service's own
 * routes, and as the throwaway server of `@kiln/server/testing`.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { existsSync, mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Kiln from "../src/Kiln.ts"
import { startTestKiln } from "../src/testing/KilnTestServer.ts"

const settings = Effect.runSync(Kiln.makeSettings({
  rootUrl: "http://portal.test/kiln/",
  dataDir: mkdtempSync(join(tmpdir(), "kiln-route-")),
  signingKey: "none",
  accessLog: false
}))

const OwnRoute = HttpRouter.add("GET", "/hello", Effect.succeed(HttpServerResponse.text("hello from the service")))

const App = HttpRouter.serve(Layer.mergeAll(OwnRoute, Kiln.route(settings)), { disableLogger: true, disableListenLog: true })
  .pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))

const get = (path: string) =>
  Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    const port = address._tag === "UnixPathAddress" ? 0 : address.port
    const response = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}${path}`, { redirect: "manual" }))
    return { status: response.status, headers: response.headers, text: yield* Effect.promise(() => response.text()) }
  })

layer(App, { timeout: "120 seconds" })("Kiln as a route of an Effect HttpRouter", (it) => {
  it.effect("serves Kiln under the root URL's path and leaves the service's routes alone", () =>
    Effect.gen(function*() {
      const own = yield* get("/hello")
      assert.strictEqual(own.status, 200, `own ${own.text}`)
      assert.strictEqual(own.text, "hello from the service")

      const version = yield* get("/kiln/api/v1/version")
      assert.strictEqual(version.status, 200, `version ${version.text}`)
      assert.match(version.text, /"version"/)

      // Written URLs carry the path: the API description's base path, a 404's URL.
      const description = yield* get("/kiln/swagger.v1.json")
      assert.strictEqual(JSON.parse(description.text).basePath, "/kiln/api/v1")
      const missing = yield* get("/kiln/api/v1/users/nobody")
      assert.strictEqual(missing.status, 404, missing.text)
      assert.strictEqual(JSON.parse(missing.text).url, "http://portal.test/kiln/api/swagger")

      const outside = yield* get("/api/v1/version")
      assert.strictEqual(outside.status, 404, `outside ${outside.text}`)
    }))
})

describe("@kiln/server/testing", () => {
  it("starts a throwaway Kiln with an administrator's token and removes it on close", { timeout: 120_000 }, async () => {
    const kiln = await startTestKiln()
    try {
      const me = await fetch(`${kiln.url}/api/v1/user`, { headers: { authorization: `token ${kiln.adminToken}` } })
      assert.strictEqual(me.status, 200)
      const body = await me.json() as { login: string; is_admin: boolean }
      assert.strictEqual(body.login, kiln.admin.username)
      assert.isTrue(body.is_admin)
      const repo = await fetch(`${kiln.url}/api/v1/user/repos`, {
        method: "POST",
        headers: { authorization: `token ${kiln.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "throwaway" })
      })
      assert.strictEqual(repo.status, 201)
      assert.strictEqual((await repo.json() as { clone_url: string }).clone_url, `${kiln.url}/${kiln.admin.username}/throwaway.git`)
    } finally {
      await kiln.close()
    }
    assert.isFalse(existsSync(kiln.dataDir))
  })
})
