/** The LFS rules that need no store: pointers git-lfs may name, and lock paths cleaned to one form. */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { cleanLockPath } from "../../src/lfs/LfsLock.ts"
import { isValidPointer } from "../../src/lfs/LfsPointer.ts"

const segment = fc.oneof(fc.constantFrom("", ".", "..", "a", "b.psd", "dir"), fc.string({ minLength: 1, maxLength: 4 }).filter((s) => !s.includes("/") && !s.includes("\\")))
const path = fc.array(segment, { maxLength: 8 }).map((segments) => segments.join("/"))

describe("LFS rules", () => {
  it("a pointer is a lower-case SHA-256 and a whole size that is not negative", () => {
    const oid = "a".repeat(64)
    assert.isTrue(isValidPointer({ oid, size: 0 }))
    assert.isTrue(isValidPointer({ oid, size: 2 ** 40 }))
    for (const bad of [{ oid, size: -1 }, { oid, size: 1.5 }, { oid, size: Number.NaN }, { oid: "A".repeat(64), size: 1 }, { oid: "a".repeat(63), size: 1 }, { oid: `${"a".repeat(63)}g`, size: 1 }]) {
      assert.isFalse(isValidPointer(bad), JSON.stringify(bad))
    }
  })

  it("lock paths: cleaning is idempotent, relative, and leaves no empty, `.` or `..` segment", () => {
    fc.assert(fc.property(path, (raw) => {
      const cleaned = cleanLockPath(raw)
      assert.strictEqual(cleanLockPath(cleaned), cleaned)
      assert.isFalse(cleaned.startsWith("/"))
      if (cleaned !== "") {
        for (const part of cleaned.split("/")) assert.notInclude(["", ".", ".."], part)
      }
      // A path and its clean form name the same lock.
      assert.strictEqual(cleanLockPath(`/${raw}/`), cleaned)
    }))
    assert.strictEqual(cleanLockPath("/art//./x/../hero.psd"), "art/hero.psd")
    assert.strictEqual(cleanLockPath("../../etc/passwd"), "etc/passwd")
  })
})
