import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { seedRepository } from "./ArchiveFixtures.ts"
import { createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

layer(TestServer.layer(), { timeout: "180 seconds" })("editorconfig", (it) => {
  it.effect("matches the root .editorconfig's sections and globs, later sections winning, with Forgejo's four keys", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      const { feature } = yield* seedRepository(ada.auth, "ada", "styled")
      const definition = (file: string, query = "") =>
        Effect.map(request("GET", `/api/v1/repos/ada/styled/editorconfig/${file}${query}`, { auth: ada.auth }), (r) => [r.status, r.body] as const)
      assert.deepStrictEqual(yield* definition("main.py"), [200, { charset: "utf-8", indent_style: "space", indent_size: "4", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("app.ts"), [200, { charset: "utf-8", indent_style: "space", indent_size: "2", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("lib.js"), [200, { charset: "utf-8", indent_style: "space", indent_size: "2", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("Makefile"), [200, { charset: "utf-8", indent_style: "tab", indent_size: "4", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("NOTES.md"), [200, { charset: "latin1", indent_style: "space", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("x.ts", `?ref=${feature}`), [200, { charset: "utf-8", indent_style: "space", indent_size: "2", end_of_line: "lf" }])
      assert.strictEqual((yield* definition("x.ts", "?ref=missing"))[0], 404)

      const plain = yield* request("POST", "/api/v1/user/repos", { auth: ada.auth, json: { name: "plain", auto_init: true } })
      assert.strictEqual(plain.status, 201)
      assert.strictEqual((yield* request("GET", "/api/v1/repos/ada/plain/editorconfig/a.ts", { auth: ada.auth })).status, 404)
      yield* request("POST", "/api/v1/user/repos", { auth: ada.auth, json: { name: "empty" } })
      const empty = yield* request("GET", "/api/v1/repos/ada/empty/editorconfig/a.ts", { auth: ada.auth })
      assert.strictEqual(empty.status, 404)
    }))

  it.effect("answers {} for a file no section matches", () =>
    Effect.gen(function*() {
      const bo = yield* createUser("bo")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: bo.auth, json: { name: "narrow", auto_init: true } })
      assert.strictEqual(created.status, 201)
      // Replace the content with an .editorconfig that only speaks of Go files.
      const { bareRepositoryPath, contentTree, git } = yield* Effect.promise(() => import("./ArchiveFixtures.ts"))
      const work = contentTree()
      const { writeFileSync } = yield* Effect.promise(() => import("node:fs"))
      writeFileSync(`${work}/.editorconfig`, "root = true\n[*.go]\nindent_style = tab\n")
      yield* git(["init", "--quiet", "--initial-branch=main", work])
      yield* git(["add", "-A"], work)
      yield* git(["commit", "--quiet", "-m", "narrow"], work)
      yield* git(["push", "--quiet", "--force", yield* bareRepositoryPath("bo", "narrow"), "main"], work)
      const none = yield* request("GET", "/api/v1/repos/bo/narrow/editorconfig/a.ts")
      assert.strictEqual(none.status, 200)
      assert.deepStrictEqual(none.body, {})
      const go = yield* request("GET", "/api/v1/repos/bo/narrow/editorconfig/a.go")
      // EditorConfig: indent_style = tab with no indent_size means indent_size = tab.
      assert.deepStrictEqual(go.body, { indent_style: "tab", indent_size: "tab" })
    }))
})
