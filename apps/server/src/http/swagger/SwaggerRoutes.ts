/**
 * Routes publishing the API description: `GET /swagger.v1.json` (computed once, when the layer is
 * built) and `GET /api/swagger` (Swagger UI), with the UI's files served from `swagger-ui-dist` under
 * `/api/swagger/assets/`.
 *
 * Routes are registered at the server root; `rootPath` is the instance's sub-path as clients see it
 * (`/` or e.g. `/forge/`, from ROOT_URL), used in the URLs the page and the description contain, as
 * Forgejo does behind a path-stripping proxy.
 */
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Effect, type Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import type { HttpApi, HttpApiGroup } from "effect/http-api"
import { type Swagger2Options, toSwagger2 } from "./SwaggerDocument.ts"
import { swaggerUiPage } from "./SwaggerUiPage.ts"

export type SwaggerRoutesOptions = Omit<Swagger2Options, "basePath" | "pathPrefix">

/** The prefix every endpoint of the API is served under. */
const apiPrefix = "/api/v1"
const documentPath = "/swagger.v1.json"
const pagePath = "/api/swagger"
const assetsPath = "/api/swagger/assets/"

const assets: ReadonlyArray<{ readonly file: string; readonly contentType: string }> = [
  { file: "swagger-ui.css", contentType: "text/css; charset=utf-8" },
  { file: "swagger-ui-bundle.js", contentType: "text/javascript; charset=utf-8" },
  { file: "favicon-32x32.png", contentType: "image/png" },
  { file: "favicon-16x16.png", contentType: "image/png" }
]

/** `/`, `/forge/`: one leading and one trailing slash. */
const normalizeRootPath = (rootPath: string): string => {
  const trimmed = rootPath.replace(/^\/+|\/+$/g, "")
  return trimmed === "" ? "/" : `/${trimmed}/`
}

const readSwaggerUiDist = Effect.promise(async () => {
  const packageJson = createRequire(import.meta.url).resolve("swagger-ui-dist/package.json")
  const folder = dirname(packageJson)
  // Untyped JSON at a true boundary: only `version` is read, and checked.
  const manifest: unknown = JSON.parse(await readFile(packageJson, "utf8"))
  const version = typeof manifest === "object" && manifest !== null && "version" in manifest &&
      typeof manifest.version === "string"
    ? manifest.version
    : "0"
  const files = await Promise.all(assets.map(async (asset) => ({ ...asset, bytes: await readFile(join(folder, asset.file)) })))
  return { version, files }
})

export const SwaggerRoutes = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  rootPath: string,
  options: SwaggerRoutesOptions
): Layer.Layer<never, never, HttpRouter.HttpRouter> =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const root = normalizeRootPath(rootPath)
    const document = yield* Effect.sync(() =>
      toSwagger2(api, { ...options, basePath: `${root.slice(0, -1)}${apiPrefix}`, pathPrefix: apiPrefix })
    )
    const documentJson = JSON.stringify(document)
    const swaggerUi = yield* readSwaggerUiDist
    const page = swaggerUiPage({
      title: document.info.title,
      documentUrl: `${root}${documentPath.slice(1)}`,
      assetsUrl: `${root}${assetsPath.slice(1)}`,
      assetsVersion: swaggerUi.version,
      homeUrl: root
    })

    yield* router.add("GET", documentPath, Effect.sync(() => HttpServerResponse.text(documentJson, { contentType: "application/json" })))
    yield* router.add("GET", pagePath, Effect.sync(() => HttpServerResponse.html(page)))
    for (const asset of swaggerUi.files) {
      yield* router.add(
        "GET",
        `${assetsPath}${asset.file}`,
        Effect.sync(() =>
          HttpServerResponse.uint8Array(asset.bytes, {
            contentType: asset.contentType,
            headers: { "cache-control": "public, max-age=604800" }
          })
        )
      )
    }
  }))
