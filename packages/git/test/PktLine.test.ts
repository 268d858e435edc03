import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { DELIMITER, FLUSH, type PktLine, pktLength, pktLine, pktLines } from "../src/PktLine.ts"

const written = (line: PktLine): string => line === FLUSH ? "0000" : line === DELIMITER ? "0001" : pktLine(line)

describe("PktLine", () => {
  it("reads back every sequence of lines, flushes and delimiters as written", () => {
    const line = fc.oneof(fc.string({ unit: "grapheme", maxLength: 40 }).filter((text) => text.length > 0), fc.constant(FLUSH), fc.constant(DELIMITER))
    fc.assert(fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
      assert.deepStrictEqual(pktLines(Buffer.from(lines.map(written).join(""))), lines)
    }))
  })

  it("reads a length only from 4 lower-case hex digits that are all there", () => {
    assert.strictEqual(pktLength(Buffer.from("xx00a0"), 2), 160)
    for (const bytes of ["00A0", "0x10", "00 1", "001", "+001"]) assert.strictEqual(pktLength(Buffer.from(bytes), 0), undefined, bytes)
  })

  it("refuses what is not a whole sequence of pkt-lines", () => {
    // A length below 4 other than a flush or delimiter, upper-case digits, a line cut short, a header cut short.
    for (const bytes of ["0002", "0003", "000Ahello!", "000ahello", "0000000", "zzzz"]) assert.strictEqual(pktLines(Buffer.from(bytes)), undefined, bytes)
  })
})
