/**
 * Inputs that make markdown parsers slow or large. Each must complete or be refused cleanly
 * (MarkdownTimeout, MarkdownTooComplex) within the time and memory limits, never crash a worker for
 * good, and leave the renderer serving ordinary text afterwards.
 */
import { assert, layer } from "@effect/vitest"
import { Markdown } from "@kiln/domain/markdown/Markdown"
import { Cause, Effect, Exit, Layer } from "effect"
import { MarkdownLive } from "../src/MarkdownLive.ts"
import { makeInMemoryMentionableUsers } from "./support/InMemoryMentionableUsers.ts"

const limitMillis = 2_000
const Live = MarkdownLive({ maxSize: 1024 * 1024, timeoutMillis: limitMillis, rootUrl: "http://localhost:3000/", workers: 2 })
  .pipe(Layer.provide(makeInMemoryMentionableUsers(["a"]).layer))

const pathological: Readonly<Record<string, string>> = {
  "deeply nested block quotes": ">".repeat(5_000) + " x",
  "deeply nested lists": Array.from({ length: 1_000 }, (_, i) => " ".repeat(i * 2) + "- x").join("\n"),
  "deeply nested raw HTML": "<div>".repeat(10_000) + "x",
  "deeply nested emphasis": "*".repeat(5_000) + "a" + "*".repeat(5_000),
  "10,000 unclosed brackets": "[".repeat(10_000),
  "10,000 unclosed links": "[a](".repeat(10_000),
  "10,000 unclosed images": "![".repeat(10_000),
  "long emphasis runs": "*a ".repeat(10_000) + "_b ".repeat(10_000),
  "a long run of delimiters": "**".repeat(20_000),
  "a huge table": "|" + "a|".repeat(100) + "\n|" + "-|".repeat(100) + "\n" + ("|" + "x|".repeat(100) + "\n").repeat(2_000),
  "50,000 backticks": "`".repeat(50_000) + "x",
  "100,000 entities": "&amp;".repeat(100_000),
  "mention-like runs": "@a.".repeat(100_000),
  "URL-like runs": "http://a/(".repeat(50_000),
  "commit-URL-like runs": "https://h/" + "a/".repeat(50_000) + "commit/zzz",
  "wiki-link-like runs": "[[a|".repeat(50_000),
  "100,000 emoji": "😄".repeat(100_000),
  // Quadratic in memory: a review measured 1.3 GB for 10 KB of nested quotes, 2.3 GB a worker at 12 KB.
  "12,000 nested quotes": ">".repeat(12_000),
  "a table padded to 500 columns": "|" + "a|".repeat(500) + "\n|" + "-|".repeat(500) + "\n" + "|\n".repeat(2_000)
}

layer(Live, { timeout: "240 seconds" })("pathological inputs", (it) => {
  it.effect("each completes or is refused with MarkdownTimeout or MarkdownTooComplex, concurrently, and the renderer keeps working", () =>
    Effect.gen(function*() {
      const markdown = yield* Markdown
      const outcomes = yield* Effect.forEach(
        Object.entries(pathological),
        ([name, text]) =>
          Effect.exit(markdown.render({ text, mode: "comment", context: "o/r", wiki: true })).pipe(
            Effect.map((exit) => [name, exit] as const)
          ),
        { concurrency: "unbounded" }
      )
      for (const [name, exit] of outcomes) {
        if (Exit.isSuccess(exit)) {
          assert.isString(exit.value, name)
          continue
        }
        const failure = Cause.findErrorOption(exit.cause)
        assert.isTrue(
          failure._tag === "Some" && (failure.value._tag === "MarkdownTimeout" || failure.value._tag === "MarkdownTooComplex"),
          `${name}: ${Cause.pretty(exit.cause)}`
        )
      }
      assert.strictEqual(yield* markdown.render({ text: "still *here*", mode: "gfm", context: "", wiki: false }), "<p>still <em>here</em></p>\n")
    }))
})
