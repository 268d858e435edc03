import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { namesAreUnique, truncateTitle } from "../../src/release/Release.ts"

const utf8Length = (text: string) => new TextEncoder().encode(text).length

describe("release titles", () => {
  it("keep at most 255 bytes of UTF-8 and never split a character", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), (title) => {
      const cut = truncateTitle(title)
      assert.isAtMost(utf8Length(cut), 255)
      assert.isTrue(title.startsWith(cut))
      // Nothing more would have fitted: the next character crosses the limit.
      const next = [...title.slice(cut.length)][0]
      if (next !== undefined) assert.isAbove(utf8Length(cut + next), 255)
    }))
  })

  it("cut before a character that would cross the limit", () => {
    assert.strictEqual(truncateTitle(`${"a".repeat(254)}é`), "a".repeat(254))
    assert.strictEqual(truncateTitle("a".repeat(255)), "a".repeat(255))
  })
})

describe("attachment names", () => {
  it("are unique when no two attachments share one", () => {
    const named = (...names: Array<string>) =>
      names.map((name, id) => ({
        id, name, uuid: "", repoId: 1, releaseId: 1, uploaderId: 1, size: 0, sha256: "", downloadCount: 0, externalUrl: "", createdAt: 0
      }))
    assert.isTrue(namesAreUnique(named("a", "b")))
    assert.isFalse(namesAreUnique(named("a", "b", "a")))
    assert.isTrue(namesAreUnique([]))
  })
})
