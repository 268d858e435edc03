/**
 * Review 4b30e64, finding 24: the memory of conditional requests is bounded by bytes. Requests are
 * kept as digests whatever their URL and credentials, entries are counted by what they hold, the
 * oldest go first, and long URLs are not remembered at all. The figures asserted are the bytes the
 * cache accounts for, not the process's memory.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { conditionalResponses, MAX_REMEMBERED_URL } from "../../src/http/conditional/ConditionalResponses.ts"
import { entryBytes, requestKey, ValidatorCache } from "../../src/http/conditional/ValidatorCache.ts"
import { request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

/** What the review sent: a 15,000-character query and a 16 KiB unparseable Authorization header. */
const hostile = (n: number) => ({
  url: `/api/v1/version?n=${n}&p=${"p".repeat(15_000)}`,
  headers: { authorization: `x${"a".repeat(16 * 1024)}${n}` }
})

describe("the validator cache's memory", () => {
  it("is bounded by bytes: 10,000 hostile requests keep at most the bound, the newest kept", () => {
    const maxBytes = 256 * 1024
    const cache = new ValidatorCache({ maxBytes })
    const validators = { version: 1, etag: `"${"e".repeat(27)}"`, lastModified: undefined, budget: undefined }
    let newest = ""
    for (let n = 0; n < 10_000; n++) {
      const { url, headers } = hostile(n)
      newest = requestKey(url, headers)
      cache.set(newest, validators)
      assert.isAtMost(cache.bytes, maxBytes)
    }
    // A request is kept as a 43-character digest: each entry costs the same however large it was.
    assert.strictEqual(newest.length, 43)
    assert.strictEqual(cache.bytes, cache.size * entryBytes(newest, validators))
    assert.isAbove(cache.size, 100)
    assert.deepStrictEqual(cache.get(newest), validators)
    assert.isUndefined(cache.get(requestKey(hostile(0).url, hostile(0).headers)), "the oldest went first")
  })

  it.effect("does not remember answers to long URLs, and remembers short ones asked conditionally", () =>
    Effect.gen(function*() {
      const cache = new ValidatorCache({ maxBytes: 1024 * 1024 })
      const middleware = conditionalResponses({ version: () => 1, accessVersion: () => 1, changed: () => {} }, { exempt: () => false, changesNothing: () => false, remembers: () => true, cache })
      const app = Effect.succeed(HttpServerResponse.jsonUnsafe({ version: "1.1.1" }))
      const get = (url: string, headers: Record<string, string> = {}) =>
        Effect.provideService(
          middleware(app),
          HttpServerRequest.HttpServerRequest,
          HttpServerRequest.fromWeb(new Request(`http://kiln.test${url}`, { headers }))
        )
      const stale = { "if-none-match": `"stale"` }
      for (let n = 0; n < 100; n++) {
        const response = yield* get(hostile(n).url, stale)
        assert.strictEqual(response.status, 200)
        assert.isString(response.headers["etag"])
      }
      assert.strictEqual(cache.size, 0)
      assert.strictEqual(cache.bytes, 0)
      const short = `/api/v1/version?p=${"p".repeat(MAX_REMEMBERED_URL - 20)}`
      // A plain GET is answered and tagged, not remembered: most are never asked again.
      const plain = yield* get(short)
      assert.isString(plain.headers["etag"])
      assert.strictEqual(cache.size, 0)
      yield* get(short, stale)
      assert.strictEqual(cache.size, 1)
    }))
})

layer(TestServer.layer(), { timeout: "120 seconds" })("conditional requests to long URLs", (it) => {
  it.effect("are still answered 304 when the tag matches, by running the route", () =>
    Effect.gen(function*() {
      const { url } = hostile(1)
      const first = yield* request("GET", url)
      assert.strictEqual(first.status, 200)
      const etag = first.headers.get("etag") ?? ""
      const again = yield* request("GET", url, { headers: { "if-none-match": etag } })
      assert.strictEqual(again.status, 304)
      assert.strictEqual(again.headers.get("etag"), etag)
    }))
})
