import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import {
  forgejoSecurity,
  forgejoSecurityDefinitions
} from "../../src/http/swagger/SwaggerSecurity.ts"
import { type SwaggerDocument, type SwaggerOperation, toSwagger2 } from "../../src/http/swagger/SwaggerDocument.ts"
import { foreignKeywordPaths } from "./ForeignKeywords.ts"
import { operationIds, quotaCheckDescription, TestApi } from "./TestApi.ts"

const options = { title: "Kiln API", version: "1.1.1", basePath: "/api/v1" }
const document = toSwagger2(TestApi, options)

/** swagger-parser dereferences in place and is typed against openapi-types; hand it a structural copy. */
const validate = (doc: SwaggerDocument) =>
  // Boundary: the validator's input type is openapi-types' OpenAPI.Document, a different but compatible model.
  SwaggerParser.validate(structuredClone(doc) as unknown as Parameters<typeof SwaggerParser.validate>[0])

const operation = (doc: SwaggerDocument, path: string, method: "get" | "post" | "patch" | "delete"): SwaggerOperation => {
  const found = doc.paths[path]?.[method]
  if (found === undefined) throw new Error(`no ${method} ${path} in ${Object.keys(doc.paths).join(", ")}`)
  return found
}

const parameter = (op: SwaggerOperation, name: string) => {
  const found = op.parameters?.find((p) => p.name === name)
  if (found === undefined) throw new Error(`no parameter ${name} in ${op.operationId}`)
  return found
}

describe("toSwagger2", () => {
  it("produces a document the Swagger 2.0 validator accepts", async () => {
    const validated = await validate(document)
    assert.strictEqual("swagger" in validated && validated.swagger, "2.0")
  })

  it("has the spec's header: version 1.1.1, basePath /api/v1, media types and schemes", () => {
    assert.strictEqual(document.swagger, "2.0")
    assert.deepStrictEqual(document.info, { title: "Kiln API", version: "1.1.1" })
    assert.strictEqual(document.basePath, "/api/v1")
    assert.deepStrictEqual(document.consumes, ["application/json", "text/plain"])
    assert.deepStrictEqual(document.produces, ["application/json", "text/html"])
    assert.deepStrictEqual(document.schemes, ["http", "https"])
  })

  it("names operations after their endpoints, with paths relative to basePath", () => {
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId))
    assert.deepStrictEqual([...ids].sort(), [...operationIds].sort())
    assert.deepStrictEqual(Object.keys(document.paths).sort(), [
      "/admin/users",
      "/admin/users/{username}",
      "/markdown/raw",
      "/repos/{owner}/{repo}/raw/{filepath}",
      "/repos/{owner}/{repo}/releases/{id}/assets",
      "/user/quota/check",
      "/users/search",
      "/users/{username}",
      "/users/{username}/followers",
      "/version"
    ])
    assert.deepStrictEqual(document.tags.map((tag) => tag.name), ["user", "admin", "miscellaneous", "repository"])
    assert.deepStrictEqual(operation(document, "/users/{username}", "get").tags, ["user"])
  })

  it("types query and path parameters by their decoded schema", () => {
    const search = operation(document, "/users/search", "get")
    assert.deepStrictEqual(parameter(search, "page"), {
      name: "page",
      in: "query",
      description: "page number (1-based)",
      type: "integer",
      format: "int64",
      minimum: 0,
      exclusiveMinimum: true
    })
    assert.deepStrictEqual(parameter(search, "limit"), {
      name: "limit",
      in: "query",
      description: "page size of results",
      type: "integer",
      format: "int64"
    })
    assert.deepStrictEqual(parameter(search, "q"), { name: "q", in: "query", type: "string" })
    assert.deepStrictEqual(parameter(search, "uid"), { name: "uid", in: "query", type: "integer", format: "int64" })
    assert.deepStrictEqual(parameter(search, "source_id"), {
      name: "source_id",
      in: "query",
      description: "login source",
      type: "integer",
      format: "int64"
    })
    const remove = operation(document, "/admin/users/{username}", "delete")
    assert.deepStrictEqual(parameter(remove, "username"), { name: "username", in: "path", required: true, type: "string" })
    assert.deepStrictEqual(parameter(remove, "purge"), { name: "purge", in: "query", type: "boolean" })
    const check = operation(document, "/user/quota/check", "get")
    assert.deepStrictEqual(parameter(check, "subject"), { name: "subject", in: "query", required: true, type: "string" })
  })

  it("turns a trailing * into a {filepath} path parameter and a byte stream into a file response", () => {
    const raw = operation(document, "/repos/{owner}/{repo}/raw/{filepath}", "get")
    assert.deepStrictEqual(raw.parameters?.map((p) => [p.name, p.in, p.required]), [
      ["owner", "path", true],
      ["repo", "path", true],
      ["filepath", "path", true]
    ])
    assert.deepStrictEqual(raw.produces, ["application/octet-stream", "application/json"])
    assert.deepStrictEqual(raw.responses["200"], { description: "Success", schema: { type: "file" } })
  })

  it("describes a JSON body as a body parameter referencing its definition", () => {
    const create = operation(document, "/admin/users", "post")
    assert.deepStrictEqual(create.consumes, ["application/json"])
    assert.deepStrictEqual(create.produces, ["application/json"])
    assert.deepStrictEqual(create.parameters, [
      { name: "body", in: "body", required: true, schema: { $ref: "#/definitions/CreateUserOption" } }
    ])
    const edit = operation(document, "/admin/users/{username}", "patch")
    assert.deepStrictEqual(parameter(edit, "body").schema, { $ref: "#/definitions/EditUserOption" })
    assert.deepStrictEqual(document.definitions.CreateUserOption, {
      type: "object",
      properties: {
        username: { type: "string", description: "login name of the new user" },
        email: { type: "string" },
        password: { type: "string", "x-nullable": true },
        must_change_password: { type: "boolean", "x-nullable": true }
      },
      required: ["username", "email"],
      additionalProperties: false
    })
  })

  it("describes a multipart upload as formData parameters with a file", () => {
    const upload = operation(document, "/repos/{owner}/{repo}/releases/{id}/assets", "post")
    assert.deepStrictEqual(upload.consumes, ["multipart/form-data"])
    assert.deepStrictEqual(upload.parameters?.filter((p) => p.in === "formData"), [
      { name: "attachment", in: "formData", required: true, type: "file" },
      { name: "name", in: "formData", description: "name of the attachment", type: "string" }
    ])
    assert.deepStrictEqual(parameter(upload, "id"), { name: "id", in: "path", required: true, type: "number" })
  })

  it("keeps a response with headers inline, its headers simple-typed", () => {
    const followers = operation(document, "/users/{username}/followers", "get")
    assert.deepStrictEqual(followers.responses["200"], {
      description: "Success",
      schema: { type: "array", items: { $ref: "#/definitions/User" } },
      headers: { "x-total-count": { type: "integer", format: "int64" }, link: { type: "string" } }
    })
  })

  it("describes a text/plain body and a text/html response", () => {
    const render = operation(document, "/markdown/raw", "post")
    assert.deepStrictEqual(render.consumes, ["text/plain"])
    assert.deepStrictEqual(render.produces, ["text/html", "application/json"])
    assert.deepStrictEqual(render.parameters, [{ name: "body", in: "body", required: true, schema: { type: "string" } }])
    assert.deepStrictEqual(render.responses["200"], { description: "Success", schema: { type: "string" } })
  })

  it("refers to Forgejo's shared responses by status: 201 User, 204 empty, 403/404/422 errors", () => {
    const create = operation(document, "/admin/users", "post")
    assert.deepStrictEqual(create.responses, {
      "201": { $ref: "#/responses/User" },
      "401": { $ref: "#/responses/unauthorized" },
      "403": { $ref: "#/responses/forbidden" },
      "422": { $ref: "#/responses/validationError" }
    })
    const remove = operation(document, "/admin/users/{username}", "delete")
    assert.deepStrictEqual(remove.responses["204"], { $ref: "#/responses/empty" })
    assert.deepStrictEqual(remove.responses["404"], { $ref: "#/responses/notFound" })
    assert.deepStrictEqual(operation(document, "/users/search", "get").responses["200"], {
      $ref: "#/responses/UserList"
    })
    assert.deepStrictEqual(document.responses.UserList, {
      description: "UserList",
      schema: { type: "array", items: { $ref: "#/definitions/User" } }
    })
    assert.deepStrictEqual(document.responses.notFound, {
      description: "APINotFound",
      schema: { $ref: "#/definitions/APINotFound" }
    })
    assert.deepStrictEqual(document.responses.empty, { description: "APIEmpty is an empty response" })
    assert.deepStrictEqual(document.definitions.APINotFound, {
      type: "object",
      properties: { message: { type: "string" }, url: { type: "string" } },
      required: ["message", "url"],
      additionalProperties: false
    })
  })

  it("publishes endpoint annotations: the quota check says what its boolean means", () => {
    const check = operation(document, "/user/quota/check", "get")
    assert.strictEqual(check.description, quotaCheckDescription)
    assert.strictEqual(check.summary, "Check if the authenticated user is over quota for a given subject")
    assert.deepStrictEqual(check.responses["200"], { description: "Success", schema: { type: "boolean" } })
  })

  it("translates JSON Schema 2020-12 into Swagger 2.0 schemas", () => {
    assert.deepStrictEqual(foreignKeywordPaths(document), [])
    assert.deepStrictEqual(document.definitions.User.properties, {
      id: { type: "integer", format: "int64" },
      login: { type: "string" },
      full_name: { type: "string" },
      email: { type: "string" },
      is_admin: { type: "boolean" },
      visibility: { type: "string", enum: ["public", "limited", "private"] },
      website: { type: "string", "x-nullable": true },
      created: { type: "string" }
    })
    assert.isFalse(Object.keys(document.definitions).some((name) => name.endsWith("Encoded")))
  })

  it("declares the middleware's token, bearer and basic schemes under Forgejo's names", () => {
    assert.deepStrictEqual(document.securityDefinitions, {
      AuthorizationHeaderToken: forgejoSecurityDefinitions.AuthorizationHeaderToken,
      BasicAuth: { type: "basic" }
    })
    assert.deepStrictEqual(operation(document, "/admin/users", "post").security, [
      { AuthorizationHeaderToken: [] },
      { BasicAuth: [] }
    ])
    assert.isUndefined(operation(document, "/version", "get").security)
  })

  it("adds Forgejo's other schemes and global requirement when asked, and stays valid", async () => {
    const withForgejoSecurity = toSwagger2(TestApi, {
      ...options,
      securityDefinitions: forgejoSecurityDefinitions,
      security: forgejoSecurity
    })
    assert.deepStrictEqual(Object.keys(withForgejoSecurity.securityDefinitions).sort(), [
      "AuthorizationHeaderToken",
      "BasicAuth",
      "SudoHeader",
      "SudoParam",
      "TOTPHeader"
    ])
    assert.deepStrictEqual(withForgejoSecurity.security, [...forgejoSecurity])
    await validate(withForgejoSecurity)
  })

  it("keeps paths relative when the instance lives under a sub-path", async () => {
    const sub = toSwagger2(TestApi, { ...options, basePath: "/forge/api/v1", pathPrefix: "/api/v1" })
    assert.strictEqual(sub.basePath, "/forge/api/v1")
    assert.deepStrictEqual(Object.keys(sub.paths), Object.keys(document.paths))
    await validate(sub)
  })

  it("refuses an API whose endpoint names collide across groups", () => {
    const Clashing = HttpApi.make("clash")
      .add(HttpApiGroup.make("a").add(HttpApiEndpoint.get("list", "/a", { success: Schema.String })))
      .add(HttpApiGroup.make("b").add(HttpApiEndpoint.get("list", "/b", { success: Schema.String })))
    assert.throws(() => toSwagger2(Clashing, options), /Duplicate Swagger operationId: list/)
  })
})
