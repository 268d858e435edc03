/**
 * Git's smart HTTP served without the application (DirectRoutes.ts) answers as the application
 * does: each request is one line of the access log, and an anonymous advertisement spends the
 * address's budget and is refused with the same 429 and headers once it is spent. A request
 * carrying `X-Forwarded-For` is left to the application (which warns about it), for comparison.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import { capturedStdout } from "../support/CapturedOutput.ts"
import { baseUrl } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

interface Answer {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
}

/** A GET as git's client sends it: node:http, no header beyond those given (fetch adds some of its own). */
const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.callback<Answer>((resume) => {
      Http.get(`${base}${path}`, { headers, agent: false }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resume(Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8") })))
      })
    }))

const BUDGET = 3

layer(TestServer.layer({ accessLog: true, rateLimitAnonymous: BUDGET, trustedProxies: [] }), { timeout: "60 seconds" })("git served directly", (it) => {
  it.effect("logs each request once, spends the address's budget and answers the application's 429 once it is spent", () =>
    Effect.gen(function*() {
      const path = "/root/nothing.git/info/refs?service=git-upload-pack"
      const { value: answers, output } = yield* capturedStdout(Effect.forEach(Array.from({ length: BUDGET + 1 }), () => get(path)))
      const logged = output.split("\n").filter((line) => line.includes("nothing.git")).map((line) => JSON.parse(line))
      assert.deepStrictEqual(
        logged.map((line) => [line.method, line.path, line.status, line.remote]),
        answers.map((answer) => ["GET", path, answer.status, "127.0.0.1"])
      )
      assert.deepStrictEqual(answers.map((answer) => answer.status), [...Array.from({ length: BUDGET }, () => 401), 429])

      const direct = answers[BUDGET]
      const throughApplication = yield* get(path, { "x-forwarded-for": "203.0.113.9" })
      for (const refused of [direct, throughApplication]) {
        assert.strictEqual(refused?.status, 429)
        assert.strictEqual(refused?.text, "API rate limit exceeded for address:127.0.0.1\n")
        assert.strictEqual(refused?.headers["content-type"], "text/plain")
        assert.strictEqual(refused?.headers["x-ratelimit-remaining"], "0")
        assert.strictEqual(refused?.headers["x-ratelimit-limit"], String(BUDGET))
        assert.strictEqual(refused?.headers["x-ratelimit-resource"], "core")
        assert.isAtLeast(Number(refused?.headers["retry-after"]), 1)
      }
      // Signed in, git's request is the sign-in's to limit, not the budget's.
      const basic = Buffer.from(`${TestServer.admin.basic?.username}:${TestServer.admin.basic?.password}`).toString("base64")
      assert.strictEqual((yield* get(path, { authorization: `Basic ${basic}` })).status, 404)
    }))
})
