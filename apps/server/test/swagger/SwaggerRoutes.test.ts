import { readFile } from "node:fs/promises"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { chromium } from "playwright-core"
import { toSwagger2 } from "../../src/http/swagger/SwaggerDocument.ts"
import { SwaggerRoutes } from "../../src/http/swagger/SwaggerRoutes.ts"
import { operationIds, TestApi } from "./TestApi.ts"

const documentOptions = { title: "Kiln API", version: "1.1.1" }

const ServerLive = HttpRouter.serve(SwaggerRoutes(TestApi, "/", documentOptions), { disableLogger: true }).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

/** e.g. `http://127.0.0.1:41234`, the port the OS picked. */
const baseUrl = Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  return HttpServer.formatAddress(server.address)
})

const get = (url: string) => Effect.promise(() => fetch(url))
const swaggerUiFile = (file: string) =>
  Effect.promise(() => readFile(join(dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json")), file)))

/** Debian's chromium (installed by .ci/run), headless, without any network of its own. */
const launchChromium = Effect.acquireRelease(
  Effect.promise(() =>
    chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
  ),
  (browser) => Effect.promise(() => browser.close())
)

layer(ServerLive, { excludeTestServices: true, timeout: "60 seconds" })("SwaggerRoutes over HTTP", (it) => {
  it.effect("serves the generated description at /swagger.v1.json", () =>
    Effect.gen(function*() {
      const response = yield* get(`${yield* baseUrl}/swagger.v1.json`)
      assert.strictEqual(response.status, 200)
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/)
      const served: unknown = yield* Effect.promise(() => response.json())
      assert.deepStrictEqual(served, toSwagger2(TestApi, { ...documentOptions, basePath: "/api/v1", pathPrefix: "/api/v1" }))
    }))

  it.effect("serves /api/swagger as a page that loads only local assets", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const response = yield* get(`${base}/api/swagger`)
      assert.strictEqual(response.status, 200)
      assert.match(response.headers.get("content-type") ?? "", /^text\/html/)
      const html = yield* Effect.promise(() => response.text())
      assert.include(html, `"url":"/swagger.v1.json"`)
      const sources = Array.from(html.matchAll(/(?:src|href)="([^"]+)"/g), (match) => match[1])
      assert.includeMembers(sources.map((source) => source.replace(/\?.*$/, "")), [
        "/api/swagger/assets/swagger-ui-bundle.js",
        "/api/swagger/assets/swagger-ui.css"
      ])
      assert.isTrue(sources.every((source) => source.startsWith("/")), sources.join(" "))
    }))

  it.effect("serves swagger-ui-dist's files under /api/swagger/assets/", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      for (const [file, type] of [["swagger-ui-bundle.js", "text/javascript"], ["swagger-ui.css", "text/css"]] as const) {
        const response = yield* get(`${base}/api/swagger/assets/${file}`)
        assert.strictEqual(response.status, 200)
        assert.match(response.headers.get("content-type") ?? "", new RegExp(`^${type}`))
        const body = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
        assert.isTrue(Buffer.from(body).equals(yield* swaggerUiFile(file)), file)
      }
      assert.strictEqual((yield* get(`${base}/api/swagger/assets/index.html`)).status, 404)
    }))

  it.effect("renders every operation in headless Chromium without leaving the server", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const browser = yield* launchChromium
      const page = yield* Effect.promise(() => browser.newPage())
      const requested: Array<string> = []
      const pageErrors: Array<string> = []
      page.on("request", (request) => requested.push(request.url()))
      page.on("pageerror", (error) => pageErrors.push(error.message))

      yield* Effect.promise(() => page.goto(`${base}/api/swagger`))
      yield* Effect.promise(() => page.locator(".opblock").first().waitFor({ timeout: 30_000 }))

      const blocks = yield* Effect.promise(() => page.locator(".opblock").all())
      const rendered = yield* Effect.promise(() =>
        Promise.all(blocks.map(async (block) => ({
          id: await block.getAttribute("id"),
          path: await block.locator(".opblock-summary-path").getAttribute("data-path")
        })))
      )
      // Swagger UI names each block `operations-<tag>-<operationId>`.
      assert.deepStrictEqual(
        rendered.map((block) => block.id?.replace(/^operations-[^-]+-/, "")).sort(),
        [...operationIds].sort()
      )
      assert.includeMembers(rendered.map((block) => block.path), [
        "/users/{username}",
        "/admin/users/{username}",
        "/markdown/raw",
        "/repos/{owner}/{repo}/raw/{filepath}"
      ])
      const title = yield* Effect.promise(() => page.locator(".info .title").innerText())
      assert.include(title, "Kiln API")
      assert.include(title, "1.1.1")
      const baseUrlShown = yield* Effect.promise(() => page.locator(".info .base-url").innerText())
      assert.include(baseUrlShown, "/api/v1")

      assert.deepStrictEqual(pageErrors, [])
      assert.isTrue(requested.includes(`${base}/swagger.v1.json`), requested.join("\n"))
      assert.deepStrictEqual(requested.filter((url) => !url.startsWith(`${base}/`)), [])
    }), { timeout: 60_000 })
})

describe("SwaggerRoutes under a sub-path", () => {
  it.effect("puts the root path into basePath and the page's URLs", () =>
    Effect.gen(function*() {
      const { handler, dispose } = HttpRouter.toWebHandler(
        SwaggerRoutes(TestApi, "/forge", documentOptions).pipe(Layer.provide(HttpServer.layerServices)),
        { disableLogger: true }
      )
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const description: unknown = yield* Effect.promise(() =>
        handler(new Request("http://kiln.test/swagger.v1.json")).then((response) => response.json())
      )
      assert.deepStrictEqual(
        description,
        toSwagger2(TestApi, { ...documentOptions, basePath: "/forge/api/v1", pathPrefix: "/api/v1" })
      )
      const html = yield* Effect.promise(() => handler(new Request("http://kiln.test/api/swagger")).then((r) => r.text()))
      assert.include(html, `"url":"/forge/swagger.v1.json"`)
      assert.include(html, `src="/forge/api/swagger/assets/swagger-ui-bundle.js?v=`)
      assert.include(html, `href="/forge/"`)
    }))
})
