import { assert, describe, it } from "@effect/vitest"
import { PassThrough } from "node:stream"
import { pktLine } from "../src/PktLine.ts"
import { PktLineRequests } from "../src/PktLineRequests.ts"

const lsRefs = `${pktLine("command=ls-refs\n")}${pktLine("agent=git/2.39.5\n")}0001${pktLine("peel\n")}${pktLine("ref-prefix HEAD\n")}0000`
const never = new AbortController().signal

/** `pieces` written one per turn, the input ended after them when `end`. */
const feed = (input: PassThrough, pieces: ReadonlyArray<string>, end: boolean) => {
  void (async () => {
    for (const piece of pieces) {
      input.write(piece)
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    if (end) input.end()
  })()
}

describe("PktLineRequests", () => {
  it("reads whole ls-refs requests however they are split, and a flush alone or the input's end as the end", async () => {
    for (const [pieces, end] of [[[lsRefs, lsRefs, "0000"], false], [[lsRefs.slice(0, 3), lsRefs.slice(3, 30), lsRefs.slice(30) + lsRefs], true]] as const) {
      const input = new PassThrough()
      const requests = new PktLineRequests(input)
      feed(input, pieces, end)
      for (let index = 0; index < 2; index++) {
        const next = await requests.next(never, 0)
        assert.strictEqual(next.kind, "ls-refs")
        if (next.kind === "ls-refs") assert.strictEqual(next.bytes.toString(), lsRefs)
      }
      assert.deepStrictEqual(await requests.next(never, 0), { kind: "end" })
    }
  })

  it("hands anything else to git with every byte read and not answered", async () => {
    const fetch = `${pktLine("command=fetch\n")}0001${pktLine("done\n")}0000`
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, boolean, string, boolean]> = [
      [[lsRefs + fetch.slice(0, 24)], false, fetch.slice(0, 24), false],
      [["zzzz"], false, "zzzz", false],
      // A response-end or a bad length inside a request is git's to refuse.
      [[`${pktLine("command=ls-refs\n")}0002`], false, `${pktLine("command=ls-refs\n")}0002`, false],
      [[`${pktLine("command=ls-refsx\n")}0000`], false, `${pktLine("command=ls-refsx\n")}0000`, false],
      // The input ends inside a request.
      [[lsRefs.slice(0, 25)], true, lsRefs.slice(0, 25), true],
      // Larger than any kept request.
      [[`${pktLine("command=ls-refs\n")}0001${pktLine(`ref-prefix ${"x".repeat(900)}\n`).repeat(10)}0000`], false,
        `${pktLine("command=ls-refs\n")}0001${pktLine(`ref-prefix ${"x".repeat(900)}\n`).repeat(10)}0000`, false]
    ]
    for (const [pieces, end, head, ended] of cases) {
      const input = new PassThrough()
      const requests = new PktLineRequests(input)
      feed(input, pieces, end)
      let next = await requests.next(never, 0)
      if (next.kind === "ls-refs") next = await requests.next(never, 0)
      assert.strictEqual(next.kind, "git")
      if (next.kind !== "git") continue
      assert.strictEqual(next.head.toString(), head)
      assert.strictEqual(next.ended, ended)
      // The rest of the stream is git's (paused until git's input is piped from it): nothing more was taken.
      if (!end) {
        input.write("rest")
        const rest = new Promise<string>((resolve) => input.once("data", (chunk: Buffer) => resolve(chunk.toString())))
        input.resume()
        assert.strictEqual(await rest, "rest")
      }
    }
  })

  it("holds a bounded amount of what a client sends while its requests are answered", async () => {
    const input = new PassThrough()
    const requests = new PktLineRequests(input)
    // Requests, and far more behind them, sent before any is answered.
    input.write(lsRefs)
    // In pieces the size of SSH packets (a stream delivers a chunk whole).
    const flood = Buffer.alloc(1024 * 1024, "z")
    for (let offset = 0; offset < flood.length; offset += 32 * 1024) input.write(flood.subarray(offset, offset + 32 * 1024))
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.isTrue(input.isPaused())
    // Not taken: still the stream's, on one side of it or the other.
    assert.isAbove(input.readableLength + input.writableLength, flood.length / 2)
    assert.strictEqual((await requests.next(never, 0)).kind, "ls-refs")
    // The rest is git's: what was held, then the stream.
    const next = await requests.next(never, 0)
    assert.strictEqual(next.kind, "git")
    if (next.kind === "git") assert.isAtMost(next.head.length, 128 * 1024)
  })

  it("stops for a client that sends nothing for the idle time, or goes away", async () => {
    const idle = new PktLineRequests(new PassThrough())
    assert.deepStrictEqual(await idle.next(never, 20), { kind: "stopped", idle: true })
    const leaving = new AbortController()
    const gone = new PktLineRequests(new PassThrough())
    setTimeout(() => leaving.abort(), 10)
    assert.deepStrictEqual(await gone.next(leaving.signal, 0), { kind: "stopped", idle: false })
  })
})
