import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { at, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

layer(TestServer.layer(), { timeout: "120 seconds" })("the served API description", (it) => {
  it.effect("is valid Swagger 2.0 generated from the endpoints that serve requests", () =>
    Effect.gen(function*() {
      const response = yield* request("GET", "/swagger.v1.json")
      assert.strictEqual(response.status, 200)
      const document = response.body
      assert.strictEqual(at(document, "swagger"), "2.0")
      assert.strictEqual(at(document, "info", "version"), "1.1.1")
      assert.strictEqual(at(document, "basePath"), "/api/v1")
      assert.deepStrictEqual(at(document, "consumes"), ["application/json", "text/plain"])
      assert.deepStrictEqual(at(document, "produces"), ["application/json", "text/html"])
      // The validator mutates what it is given, so it gets a copy.
      yield* Effect.promise(() => SwaggerParser.validate(JSON.parse(response.text)))

      const operations = Object.values(at(document, "paths") as Record<string, Record<string, unknown>>)
        .flatMap((item) => Object.values(item).map((operation) => String(at(operation, "operationId"))))
      assert.includeMembers(operations, [
        "getVersion", "adminCreateUser", "adminEditUser", "adminDeleteUser", "adminCreatePublicKey",
        "adminDeleteUserPublicKey", "adminSearchUsers", "userGetCurrent", "userGet", "userSearch",
        "userCreateToken", "userGetTokens", "userDeleteAccessToken"
      ])
      assert.strictEqual(at(document, "paths", "/admin/users/{username}", "delete", "responses", "204", "$ref"), "#/responses/empty")
      assert.deepStrictEqual(
        (at(document, "paths", "/admin/users", "post", "parameters") as Array<unknown>).map((p) => at(p, "in")),
        ["body"]
      )
    }))

  it.effect("describes each of Forgejo's operations that Kiln serves at Forgejo's path and method", () =>
    Effect.gen(function*() {
      const served = operationPaths(at((yield* request("GET", "/swagger.v1.json")).body, "paths"))
      // operationId → "METHOD path" of Forgejo's Swagger document (the reference subset's paths).
      const forgejo = new Map(Object.entries(JSON.parse(readFileSync(new URL("../swagger/ForgejoOperationPaths.json", import.meta.url), "utf8")) as Record<string, string>))
      const moved = [...forgejo].flatMap(([id, where]) => served.has(id) && served.get(id) !== where ? [`${id}: ${served.get(id)}`] : [])
      // Where the spec names the path itself (api-facts, "seed vs Forgejo" 12 and 13).
      assert.deepStrictEqual(moved, [
        "repoGetArchive: GET /repos/{owner}/{repo}/archive/{filepath}",
        "repoGetCombinedStatusByRef: GET /repos/{owner}/{repo}/commits/{ref}/statuses"
      ])
    }))
})

/** operationId → "METHOD path" of a Swagger document's paths. */
const operationPaths = (paths: unknown): Map<string, string> =>
  new Map(Object.entries(paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) => {
      const id = at(operation, "operationId")
      return typeof id === "string" ? [[id, `${method.toUpperCase()} ${path}`] as const] : []
    })
  ))
