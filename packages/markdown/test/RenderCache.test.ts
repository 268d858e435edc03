import { assert, describe, it } from "@effect/vitest"
import { renderRequest } from "@kiln/domain/markdown/RenderRequest"
import { makeRenderCache, renderCacheKey } from "../src/RenderCache.ts"

const request = (text: string, mode = "gfm") => renderRequest({ text, mode, context: "", wiki: false }, "http://localhost:3000/")

describe("RenderCache", () => {
  it("keys differ by text, every option and the mentionable users, and not by their order", () => {
    const base = renderCacheKey(request("a"), new Set(["x", "y"]))
    assert.strictEqual(renderCacheKey(request("a"), new Set(["y", "x"])), base)
    assert.notStrictEqual(renderCacheKey(request("b"), new Set(["x", "y"])), base)
    assert.notStrictEqual(renderCacheKey(request("a", "comment"), new Set(["x", "y"])), base)
    assert.notStrictEqual(renderCacheKey({ ...request("a"), context: "o/r" }, new Set(["x", "y"])), base)
    assert.notStrictEqual(renderCacheKey({ ...request("a"), wiki: true }, new Set(["x", "y"])), base)
    assert.notStrictEqual(renderCacheKey({ ...request("a"), rootUrl: "https://x/" }, new Set(["x", "y"])), base)
    assert.notStrictEqual(renderCacheKey(request("a"), new Set(["x"])), base)
  })

  it("expires entries after the time to live", () => {
    let now = 0
    const cache = makeRenderCache({ maxEntries: 10, maxChars: 100, ttlMillis: 1_000, now: () => now })
    cache.set("k", "<p>a</p>")
    now = 999
    assert.strictEqual(cache.get("k"), "<p>a</p>")
    now = 1_000
    assert.isUndefined(cache.get("k"))
    assert.strictEqual(cache.size(), 0)
  })

  it("evicts the least recently used entry beyond the entry bound", () => {
    const cache = makeRenderCache({ maxEntries: 2, maxChars: 100, ttlMillis: 60_000 })
    cache.set("a", "1")
    cache.set("b", "2")
    cache.get("a")
    cache.set("c", "3")
    assert.deepStrictEqual([cache.get("a"), cache.get("b"), cache.get("c")], ["1", undefined, "3"])
  })

  it("bounds the cached characters and skips entries larger than the bound", () => {
    const cache = makeRenderCache({ maxEntries: 100, maxChars: 10, ttlMillis: 60_000 })
    cache.set("a", "12345")
    cache.set("b", "12345")
    cache.set("c", "123")
    assert.deepStrictEqual([cache.get("a"), cache.get("b"), cache.get("c")], [undefined, "12345", "123"])
    cache.set("huge", "x".repeat(11))
    assert.isUndefined(cache.get("huge"))
  })
})
