import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { withoutLeadingAdvertisement } from "../src/LeadingAdvertisement.ts"
import { pktLine } from "../src/PktLine.ts"

const advertisement = `${pktLine("version 2\n")}${pktLine("agent=git/2.39.5\n")}${pktLine("ls-refs=unborn\n")}${pktLine("fetch=shallow wait-for-done filter\n")}0000`

/** What the transform passes of `text` cut at `cuts`. */
const through = async (text: string, cuts: ReadonlyArray<number>): Promise<string> => {
  const transform = withoutLeadingAdvertisement()
  const out: Array<Buffer> = []
  transform.on("data", (chunk: Buffer) => out.push(chunk))
  const bytes = Buffer.from(text, "latin1")
  let from = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    transform.write(bytes.subarray(from, Math.max(from, cut)))
    from = Math.max(from, cut)
  }
  transform.end(bytes.subarray(from))
  await new Promise((resolve) => transform.once("end", resolve))
  return Buffer.concat(out).toString("latin1")
}

describe("withoutLeadingAdvertisement", () => {
  it("drops the advertisement up to its flush, wherever the output is cut, and passes the rest as written", async () => {
    const rest = `${pktLine("acknowledgments\n")}0001${pktLine("packfile\n")}0000garbage`
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: advertisement.length + rest.length }), { maxLength: 6 }), async (cuts) => {
        assert.strictEqual(await through(advertisement + rest, cuts), rest)
      })
    )
  })

  it("passes output that is not an advertisement whole", async () => {
    assert.strictEqual(await through("fatal: not a git repository\n", []), "fatal: not a git repository\n")
    assert.strictEqual(await through(`${pktLine("version 2\n")}0002rest`, [3]), `${pktLine("version 2\n")}0002rest`)
    // git ended inside it: what it wrote is the client's.
    assert.strictEqual(await through(advertisement.slice(0, 20), [5]), advertisement.slice(0, 20))
  })
})
