import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { isValidRefName } from "../../src/git/RefName.ts"

// Components made of characters the rule never objects to, unicode included.
const safeCharacter = fc.constantFrom(..."abcXYZ019-_+=,;!#$%&'()<>|é€👀".split(/(?:)/u))
const component = fc
  .array(safeCharacter, { minLength: 1, maxLength: 8 })
  .map((cs) => cs.join(""))
const validName = fc.array(component, { minLength: 1, maxLength: 4 }).map((cs) => cs.join("/"))
const forbiddenCharacter = fc.constantFrom(
  ..."\u0000\u0001\u001f\u007f ~^:?*[\\".split("")
)

const insertAt = (name: string, position: number, text: string) => {
  const at = position % (name.length + 1)
  return name.slice(0, at) + text + name.slice(at)
}

describe("isValidRefName", () => {
  it("accepts names made of safe components", () => {
    fc.assert(fc.property(validName, (name) => isValidRefName(name)))
  })

  it("rejects a forbidden character anywhere", () => {
    fc.assert(
      fc.property(validName, fc.nat(), forbiddenCharacter, (name, at, c) => !isValidRefName(insertAt(name, at, c)))
    )
  })

  it("rejects '..', '//' and '@{' anywhere", () => {
    fc.assert(
      fc.property(validName, fc.nat(), fc.constantFrom("..", "//", "@{"), (name, at, s) =>
        !isValidRefName(insertAt(name, at, s)))
    )
  })

  it("rejects a leading '/' or '.', a trailing '/' or '.'", () => {
    fc.assert(
      fc.property(validName, fc.constantFrom("/", "."), (name, c) =>
        !isValidRefName(c + name) && !isValidRefName(name + c))
    )
  })

  it("rejects a component that starts with '.' or ends with '.lock'", () => {
    fc.assert(
      fc.property(fc.array(component, { minLength: 1, maxLength: 4 }), fc.nat(), (components, i) => {
        const at = i % components.length
        const withDot = components.map((c, j) => (j === at ? "." + c : c)).join("/")
        const withLock = components.map((c, j) => (j === at ? c + ".lock" : c)).join("/")
        return !isValidRefName(withDot) && !isValidRefName(withLock)
      })
    )
  })

  it("follows Forgejo's examples", () => {
    for (const name of ["main", "feature/x", "test-👀", "v1.0", "a.lockb", "x@y", "a.b/c"]) {
      assert.isTrue(isValidRefName(name), name)
    }
    for (const name of ["", "@", "a..b", "a//b", "/a", "a/", "a.", ".a", "a/.b", "a.lock", "a.lock/b", "a@{1}", "a b", "a\tb"]) {
      assert.isFalse(isValidRefName(name), name)
    }
  })
})

describe("isValidRefName and the file system", () => {
  it("accepts a component of up to 255 bytes and rejects a longer one, counting UTF-8 bytes", () => {
    assert.isTrue(isValidRefName("a".repeat(255)))
    assert.isTrue(isValidRefName(`${"a".repeat(255)}/${"b".repeat(255)}`))
    assert.isFalse(isValidRefName("a".repeat(256)))
    assert.isFalse(isValidRefName(`ok/${"a".repeat(300)}`))
    // 'é' is two bytes: 128 of them are 256 bytes.
    assert.isTrue(isValidRefName("é".repeat(127)))
    assert.isFalse(isValidRefName("é".repeat(128)))
  })
})
