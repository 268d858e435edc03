import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { isValidFileName, isValidPackageName, isValidVersion } from "../../src/package/GenericPackageNames.ts"

// Forgejo's patterns, as Go's RE2 reads them (\w is ASCII).
const goPackageName = /^[-_+.\w]+$/
const goFileName = /^[-_+=:;.()[\]{}~!@#$%^& \w]+$/

describe("generic package names", () => {
  it("agree with Forgejo's rules", () => {
    fc.assert(fc.property(fc.string({ maxLength: 12 }), (name) => {
      const expected = goPackageName.test(name) && name !== ".." && !(name.length === 1 && !/[0-9A-Za-z]/.test(name))
      assert.strictEqual(isValidPackageName(name), expected, JSON.stringify(name))
    }))
    fc.assert(fc.property(fc.string({ maxLength: 12 }), (name) => {
      const expected = goFileName.test(name) && name.trim() === name && name !== "." && name !== ".."
      assert.strictEqual(isValidFileName(name), expected, JSON.stringify(name))
    }))
  })

  it("accept and refuse the usual cases", () => {
    assert.isTrue(isValidPackageName("my-lib_1.0+x"))
    assert.isFalse(isValidPackageName("_"))
    assert.isFalse(isValidPackageName(".."))
    assert.isFalse(isValidPackageName("a/b"))
    assert.isFalse(isValidPackageName("é"))
    assert.isTrue(isValidFileName("file (1) [final].tar.gz"))
    assert.isFalse(isValidFileName(" leading"))
    assert.isFalse(isValidFileName("a/b"))
    assert.isTrue(isValidVersion("1.0.0-rc.1"))
    assert.isFalse(isValidVersion(" 1.0"))
    assert.isFalse(isValidVersion(""))
  })
})
