import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { at, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const settings = TestServer.testSettings()
const attachmentFile = (uuid: string) => join(settings.dataDir, "attachments", uuid.slice(0, 1), uuid.slice(1, 2), uuid)

layer(TestServer.layer(settings), { timeout: "120 seconds" })("deleting a repository", (it) => {
  it.effect("erases its release attachments' files along with its rows", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("cleaner")
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "shortlived", auto_init: true } })).status, 201)
      const release = yield* request("POST", "/api/v1/repos/cleaner/shortlived/releases", { auth: owner.auth, json: { tag_name: "v1" } })
      assert.strictEqual(release.status, 201)
      const uploaded = yield* request("POST", `/api/v1/repos/cleaner/shortlived/releases/${String(at(release.body, "id"))}/assets?name=notes.txt`, {
        auth: owner.auth,
        body: "release notes\n",
        contentType: "application/octet-stream"
      })
      assert.strictEqual(uploaded.status, 201)
      const file = attachmentFile(String(at(uploaded.body, "uuid")))
      assert.isTrue(existsSync(file))

      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/cleaner/shortlived", { auth: owner.auth })).status, 204)
      assert.isFalse(existsSync(file))
      assert.strictEqual((yield* request("GET", `/attachments/${String(at(uploaded.body, "uuid"))}`)).status, 404)
    }))

  it.effect("forgets its cached archives, as renaming it does", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("archivist")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "zipped", auto_init: true } })
      assert.strictEqual(created.status, 201)
      const cached = join(settings.dataDir, "archives", String(at(created.body, "id")))
      const download = (name: string) =>
        Effect.map(request("GET", `/api/v1/repos/archivist/${name}/archive/main.zip`, { auth: owner.auth }), (response) => response.status)
      assert.strictEqual(yield* download("zipped"), 200)
      assert.strictEqual(readdirSync(cached).length, 1)

      const renamed = yield* request("PATCH", "/api/v1/repos/archivist/zipped", { auth: owner.auth, json: { name: "packed" } })
      assert.strictEqual(renamed.status, 200)
      assert.isFalse(existsSync(cached))
      assert.strictEqual(yield* download("packed"), 200)
      assert.deepStrictEqual(readdirSync(cached).map((name) => name.endsWith("-packed.zip")), [true])

      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/archivist/packed", { auth: owner.auth })).status, 204)
      assert.isFalse(existsSync(cached))
    }))
})
