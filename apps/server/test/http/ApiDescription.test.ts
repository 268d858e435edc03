import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
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
})
