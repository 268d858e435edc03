/**
 * The `Markdown` port as the HTTP layer will use it: render processes (the TypeScript process
 * loads under vitest too), the size limit, mentions through `MentionableUsers`, the cache and the
 * per-render time limit.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Markdown } from "@kiln/domain/markdown/Markdown"
import { rawMarkdownInput } from "@kiln/domain/markdown/RenderRequest"
import { Effect, Exit, Layer } from "effect"
import { makeMarkdown, MarkdownLive } from "../src/MarkdownLive.ts"
import { makeRenderCache } from "../src/RenderCache.ts"
import { makeWorkerPool, type WorkerPool } from "../src/worker/WorkerPool.ts"
import { makeInMemoryMentionableUsers } from "./support/InMemoryMentionableUsers.ts"

const rootUrl = "http://localhost:3000/"
const users = makeInMemoryMentionableUsers(["alice", "Bob"])
const Live = MarkdownLive({ maxSize: 1024, timeoutMillis: 10_000, rootUrl, workers: 1 }).pipe(Layer.provide(users.layer))

const gfm = (text: string) => ({ text, mode: "gfm", context: "", wiki: false })

layer(Live, { timeout: "60 seconds" })("MarkdownLive", (it) => {
  it.effect("renders in a render process", () =>
    Effect.gen(function*() {
      const markdown = yield* Markdown
      assert.strictEqual(yield* markdown.render(gfm("# Hello")), `<h1 id="user-content-hello">Hello</h1>\n`)
    }))

  it.effect("empty text renders to nothing without asking for users", () =>
    Effect.gen(function*() {
      const markdown = yield* Markdown
      const before = users.lookups.length
      assert.strictEqual(yield* markdown.render(gfm("")), "")
      assert.strictEqual(yield* markdown.render(rawMarkdownInput("")), "")
      assert.strictEqual(users.lookups.length, before)
    }))

  it.effect("links existing users, leaves unknown ones, in one batched lookup", () =>
    Effect.gen(function*() {
      const markdown = yield* Markdown
      const before = users.lookups.length
      const html = yield* markdown.render({ text: "@alice, @bob and @nobody.", mode: "comment", context: "", wiki: false })
      assert.strictEqual(
        html,
        `<p><a href="http://localhost:3000/alice" class="mention" rel="nofollow">@alice</a>, ` +
          `<a href="http://localhost:3000/bob" class="mention" rel="nofollow">@bob</a> and @nobody.</p>\n`
      )
      assert.strictEqual(users.lookups.length, before + 1)
      assert.includeMembers([...(users.lookups[before] ?? [])], ["alice", "bob", "nobody"])
    }))

  it.effect("the raw renderer looks nobody up", () =>
    Effect.gen(function*() {
      const markdown = yield* Markdown
      const before = users.lookups.length
      assert.strictEqual(yield* markdown.render(rawMarkdownInput("@alice")), "<p>@alice</p>\n")
      assert.strictEqual(users.lookups.length, before)
    }))

  it.effect("refuses text over the size limit, counted in UTF-8 bytes", () =>
    Effect.gen(function*() {
      const markdown = yield* Markdown
      assert.isTrue((yield* markdown.render(gfm("a".repeat(1024)))).startsWith("<p>a"))
      const tooLong = yield* Effect.flip(markdown.render(gfm("a".repeat(1025))))
      assert.strictEqual(tooLong._tag, "MarkdownTooLarge")
      const wide = yield* Effect.flip(markdown.render(gfm("é".repeat(513))))
      assert.deepStrictEqual([wide._tag, wide._tag === "MarkdownTooLarge" ? wide.size : 0], ["MarkdownTooLarge", 1026])
    }))
})

/** The real pool, counting the renders that reach it. */
const counted = (pool: WorkerPool): { readonly pool: WorkerPool; readonly renders: () => number } => {
  let renders = 0
  return {
    pool: {
      ...pool,
      render: (...args) => {
        renders++
        return pool.render(...args)
      }
    },
    renders: () => renders
  }
}

const withPool = <A, E>(timeoutMillis: number, use: (pool: WorkerPool) => Effect.Effect<A, E>, maxHeapMb?: number) =>
  Effect.acquireUseRelease(
    Effect.sync(() => makeWorkerPool({ size: 1, timeoutMillis, maxHeapMb })),
    use,
    (pool) => Effect.promise(() => pool.close())
  )

describe("the render cache in the service", () => {
  it.live("serves a repeated render from the cache, keyed by text, options and mentionable users", () =>
    withPool(10_000, (pool) =>
      Effect.gen(function*() {
        const counter = counted(pool)
        const people = makeInMemoryMentionableUsers([])
        const cache = makeRenderCache({ maxEntries: 10, maxChars: 1_000_000, ttlMillis: 60_000 })
        const markdown = makeMarkdown({ maxSize: 1024, timeoutMillis: 10_000, rootUrl }, counter.pool, cache, people.service)
        const input = { text: "hi @carol", mode: "comment", context: "", wiki: false }
        const first = yield* markdown.render(input)
        assert.strictEqual(yield* markdown.render(input), first)
        assert.strictEqual(counter.renders(), 1)
        yield* markdown.render({ ...input, mode: "gfm" })
        assert.strictEqual(counter.renders(), 2)
        people.add("carol")
        const linked = yield* markdown.render(input)
        assert.strictEqual(counter.renders(), 3)
        assert.include(linked, `class="mention"`)
      })))
})

describe("the time limit", () => {
  it.live("answers MarkdownTimeout and keeps serving afterwards", () =>
    withPool(200, (pool) =>
      Effect.gen(function*() {
        const people = makeInMemoryMentionableUsers([])
        const cache = makeRenderCache({ maxEntries: 10, maxChars: 1_000_000, ttlMillis: 60_000 })
        const markdown = makeMarkdown({ maxSize: 10_000_000, timeoutMillis: 200, rootUrl }, pool, cache, people.service)
        const slow = Array.from({ length: 400 }, (_, i) => " ".repeat(i * 2) + "- x").join("\n")
        const exit = yield* Effect.exit(markdown.render({ text: slow, mode: "gfm", context: "", wiki: false }))
        assert.isTrue(Exit.isFailure(exit))
        const error = yield* Effect.flip(markdown.render({ text: slow, mode: "comment", context: "", wiki: false }))
        assert.strictEqual(error._tag, "MarkdownTimeout")
        assert.isAtLeast(pool.replacements(), 2)
        assert.strictEqual(yield* markdown.render({ text: "ok", mode: "gfm", context: "", wiki: false }), "<p>ok</p>\n")
      })))
})

describe("the memory limit", () => {
  it.live("answers MarkdownTooComplex for a render that needs more, and keeps serving afterwards", () =>
    // 10,000 nested quotes took 1.3 GB of a worker's memory within the time limit before workers had
    // a heap limit; here a render process may have 64 MB, and the time limit is far off. The test
    // process survives it: V8 ends the render process, not the one that asked.
    withPool(60_000, (pool) =>
      Effect.gen(function*() {
        const people = makeInMemoryMentionableUsers([])
        const cache = makeRenderCache({ maxEntries: 10, maxChars: 1_000_000, ttlMillis: 60_000 })
        const markdown = makeMarkdown({ maxSize: 10_000_000, timeoutMillis: 60_000, rootUrl }, pool, cache, people.service)
        const error = yield* Effect.flip(markdown.render({ text: ">".repeat(10_000), mode: "gfm", context: "", wiki: false }))
        assert.strictEqual(error._tag, "MarkdownTooComplex")
        assert.strictEqual(pool.replacements(), 1)
        assert.strictEqual(yield* markdown.render({ text: "ok", mode: "gfm", context: "", wiki: false }), "<p>ok</p>\n")
      }), 64), { timeout: 120_000 })
})

describe("the size of the answer", () => {
  it.live("answers MarkdownTooComplex for a render whose HTML would be larger than a render may answer", () =>
    // 18 KB of references to one 10,000-character link: ~20 MB of HTML, past RenderJob.MAX_HTML_CHARS.
    withPool(60_000, (pool) =>
      Effect.gen(function*() {
        const people = makeInMemoryMentionableUsers([])
        const cache = makeRenderCache({ maxEntries: 10, maxChars: 1_000_000, ttlMillis: 60_000 })
        const markdown = makeMarkdown({ maxSize: 10_000_000, timeoutMillis: 60_000, rootUrl }, pool, cache, people.service)
        const text = `[a]: http://x/${"a".repeat(10_000)}\n\n${"[a] ".repeat(2_000)}`
        const error = yield* Effect.flip(markdown.render({ text, mode: "gfm", context: "", wiki: false }))
        assert.strictEqual(error._tag, "MarkdownTooComplex")
        assert.strictEqual(yield* markdown.render({ text: "ok", mode: "gfm", context: "", wiki: false }), "<p>ok</p>\n")
      })), { timeout: 120_000 })
})
