/**
 * Request targets Node accepts but the URL parser refuses (`/\`, `//`, `//host:99999/…`): the
 * router-wide checks (git, LFS, health) read their paths on every request, and one that threw
 * answered 500 with an empty body. They name nothing: Forgejo's 404.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import { baseUrl, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

/** A GET of `target` exactly as written (fetch would normalise it). */
const getRaw = (target: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.callback<{ readonly status: number; readonly body: string }>((resume) => {
      const { hostname, port } = new URL(base)
      const request = Http.request({ hostname, port, path: target, headers }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resume(Effect.succeed({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") })))
      })
      request.on("error", (error) => resume(Effect.die(error)))
      request.end()
    }))

layer(TestServer.layer())("request targets the URL parser refuses", (it) => {
  it.effect("answer Forgejo's 404, never a 5xx", () =>
    Effect.gen(function*() {
      for (const target of ["/\\", "//", "/\\\\", "//a:99999/x", "//a:99999/o/r.git/info/refs?service=git-upload-pack", "//x:y@/api/healthz", "//%zz/o/r.git/info/lfs/objects/batch"]) {
        const { status, body } = yield* getRaw(target)
        assert.strictEqual(status, 404, `${target}: ${body}`)
        assert.deepStrictEqual(JSON.parse(body), { message: "The target couldn't be found.", url: `${ROOT_URL}api/swagger`, errors: [] }, target)
      }
    }))
})
