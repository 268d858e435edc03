import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { availableParallelism } from "node:os"
import { admin, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

// A document that holds a worker for a while (past the render time limit on a slow machine).
const slow = Array.from({ length: 400 }, (_, i) => " ".repeat(i * 2) + "- x").join("\n")

layer(TestServer.layer({ markdownMaxQueue: 0 }), { timeout: "120 seconds" })("the markdown render queue", (it) => {
  it.effect("answers 503 with Retry-After in Forgejo's error shape once every worker is busy and the queue is full", () =>
    Effect.gen(function*() {
      const answers = yield* Effect.all(
        Array.from({ length: 6 }, () => request("POST", "/api/v1/markdown/raw", { auth: admin, body: slow, contentType: "text/plain" })),
        { concurrency: "unbounded" }
      )
      const busy = answers.filter((answer) => answer.status === 503)
      const rendered = answers.filter((answer) => answer.status !== 503)
      // One render per worker (one per core) runs, rendered or stopped at the time limit; nothing
      // may wait, so the rest are refused at once.
      const statuses = answers.map((a) => a.status).join(",")
      assert.isAtLeast(busy.length, answers.length - availableParallelism(), statuses)
      assert.isTrue(rendered.every((answer) => answer.status === 200 || answer.status === 422), statuses)
      for (const answer of busy) {
        assert.strictEqual(answer.headers.get("retry-after"), "5")
        assert.strictEqual(answer.headers.get("content-type"), "application/json;charset=utf-8")
        assert.deepStrictEqual(JSON.parse(answer.text), { message: "the markdown renderer is busy; try again later", url: `${ROOT_URL}api/swagger` })
      }
      const after = yield* request("POST", "/api/v1/markdown/raw", { auth: admin, body: "fine", contentType: "text/plain" })
      assert.strictEqual(after.status, 200)
      assert.strictEqual(after.text, "<p>fine</p>\n")
    }))
})
