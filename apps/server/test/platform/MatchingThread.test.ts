/**
 * The editorconfig matching thread's queue (review 4b30e64, finding 29): bounded (past the bound,
 * Busy at once), a job whose caller went away never runs, and a job's time limit runs from when a
 * ready thread gets it (a thread's start is not counted against it).
 */
import { assert, describe, it } from "@effect/vitest"
import { makeMatchingThread } from "../../src/platform/editorconfig/MatchingThread.ts"

const encode = (text: string) => new TextEncoder().encode(text)
/** Each range expands into 100,000 patterns: matching takes seconds, past any limit below. */
const slow = encode(Array.from({ length: 64 }, (_, i) => `[{1..100000}x${i}]\nindent_style = tab\n`).join(""))
const quick = encode("[*.go]\nindent_style = tab\n")

describe("the editorconfig matching thread", () => {
  it("answers Busy at once past maxQueued waiting jobs", async () => {
    const thread = makeMatchingThread(300, 2)
    try {
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => thread.match(slow, "7")))
      assert.deepStrictEqual(outcomes.map((outcome) => outcome._tag), ["TimedOut", "TimedOut", "TimedOut", "Busy", "Busy"])
    } finally {
      await thread.close()
    }
  })

  it("never runs a job whose caller went away while it waited", async () => {
    const thread = makeMatchingThread(300, 16)
    try {
      const running = thread.match(slow, "7")
      const callers = Array.from({ length: 5 }, () => new AbortController())
      for (const caller of callers) void thread.match(slow, "7", caller.signal)
      for (const caller of callers) caller.abort()
      assert.deepStrictEqual(await thread.match(quick, "a.go"), { _tag: "Matched", properties: { indent_style: "tab", indent_size: "tab" } })
      assert.strictEqual((await running)._tag, "TimedOut")
      // Only the job that was running overran: the five that left were never matched.
      assert.strictEqual(thread.terminations(), 1)
    } finally {
      await thread.close()
    }
  })

  it("counts the time limit from when a ready thread gets the job, not from the thread's start", async () => {
    // Starting a thread (loading the library and its WebAssembly) took 260-390 ms here; a match
    // of this file, well under a millisecond.
    const thread = makeMatchingThread(50, 16)
    try {
      assert.strictEqual((await thread.match(quick, "a.go"))._tag, "Matched")
    } finally {
      await thread.close()
    }
  })
})
