import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { seedRepository } from "./ArchiveFixtures.ts"
import { baseUrl, createUser, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const download = (path: string) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const response = yield* Effect.promise(() => fetch(`${base}${path}`))
    return { status: response.status, headers: response.headers, text: yield* Effect.promise(() => response.text()) }
  })

// Room for one small archive of the seeded repository, not for two, and not for its zip.
layer(TestServer.layer({ archiveCacheMaxSize: 1000 }), { timeout: "120 seconds" })("the archive cache bound", (it) => {
  it.effect("refuses an archive the cache cannot hold: 503 with Retry-After while the room is in use, 422 when larger than the cache", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      yield* seedRepository(ada.auth, "ada", "one")
      yield* seedRepository(ada.auth, "ada", "two")
      const first = yield* download("/api/v1/repos/ada/one/archive/main.tar.gz")
      assert.strictEqual(first.status, 200)
      assert.isAbove(first.text.length, 500)
      const second = yield* download("/api/v1/repos/ada/two/archive/main.tar.gz")
      assert.strictEqual(second.status, 503)
      assert.strictEqual(second.headers.get("retry-after"), "60")
      assert.strictEqual(second.headers.get("content-type"), "application/json;charset=utf-8")
      assert.deepStrictEqual(JSON.parse(second.text), {
        message: "the archive cache is full of archives being downloaded; try again later",
        url: `${ROOT_URL}api/swagger`
      })
      const zip = yield* download("/api/v1/repos/ada/one/archive/main.zip")
      assert.strictEqual(zip.status, 422)
      assert.strictEqual(JSON.parse(zip.text).message, "the archive is larger than the archive cache (1000 bytes)")
      // The archive already kept is still served.
      assert.strictEqual((yield* download("/api/v1/repos/ada/one/archive/main.tar.gz")).status, 200)
    }))
})
