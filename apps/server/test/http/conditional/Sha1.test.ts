import * as fc from "fast-check"
import { hash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { SMALL_BODY_BYTES, tagOf } from "../../../src/http/conditional/EntityTag.ts"
import { sha1Base64Url } from "../../../src/http/conditional/Sha1.ts"

const reference = (body: Uint8Array) => hash("sha1", body, "base64url")

describe("sha1Base64Url", () => {
  it("gives FIPS 180-4's test vectors and Node's digest at every padding boundary", () => {
    const text = (value: string) => new TextEncoder().encode(value)
    expect(sha1Base64Url(text("abc"))).toBe(Buffer.from("a9993e364706816aba3e25717850c26c9cd0d89d", "hex").toString("base64url"))
    expect(sha1Base64Url(new Uint8Array(0))).toBe(Buffer.from("da39a3ee5e6b4b0d3255bfef95601890afd80709", "hex").toString("base64url"))
    // One block holds up to 55 bytes with its padding; 56–63 need a second; 64 fills one exactly.
    for (let length = 0; length <= 4 * 64 + 1; length++) {
      const body = Uint8Array.from({ length }, (_, index) => (index * 131 + length) & 0xff)
      expect(sha1Base64Url(body)).toBe(reference(body))
    }
  })

  it("equals Node's SHA-1 for any body", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 1_100 }), (body) => sha1Base64Url(body) === reference(body)), { numRuns: 2_000 })
  })
})

describe("tagOf", () => {
  it("is the quoted SHA-1 of the body, on both sides of the small-body bound", () => {
    for (const length of [0, 33, SMALL_BODY_BYTES, SMALL_BODY_BYTES + 1, 10_000]) {
      const body = Uint8Array.from({ length }, (_, index) => (index * 7) & 0xff)
      expect(tagOf(body)).toBe(`"${reference(body)}"`)
    }
  })
})
