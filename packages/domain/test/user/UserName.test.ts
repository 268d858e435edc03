import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Result, Schema } from "effect"
import * as fc from "fast-check"
import {
  bindUserName,
  checkUsableUserName,
  isValidUserName,
  lowerUserName,
  parseUserName,
  reservedUserNamePatterns,
  reservedUserNames,
  UserName
} from "../../src/user/UserName.ts"

const failureMessage = <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>): string => {
  const exit = Effect.runSyncExit(effect)
  if (Exit.isSuccess(exit)) return "<success>"
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  return error === undefined ? "<defect>" : error.error.message
}

const alnum = fc.stringMatching(/^[0-9A-Za-z]{1,6}$/)
/** Names built the way the rule allows: alphanumeric runs joined by single `-`, `.` or `_`. */
const validName = fc.tuple(alnum, fc.array(fc.tuple(fc.constantFrom("-", ".", "_", ""), alnum), { maxLength: 6 }))
  .map(([head, rest]) => head + rest.map(([sep, run]) => sep + run).join(""))
  .filter((name) => name.length <= 40)
const isReserved = (name: string) =>
  reservedUserNames.includes(name.toLowerCase()) ||
  reservedUserNamePatterns.some((pattern) => name.toLowerCase().endsWith(pattern.slice(1)))

describe("UserName", () => {
  it("accepts Forgejo's own examples", () => {
    for (const name of ["user2", "User2", "User2-2-2", "deleteme", "allowedUser1", "a.b_c-d", "9lives", "x".repeat(40)]) {
      assert.isTrue(isValidUserName(name), name)
      assert.strictEqual(failureMessage(parseUserName(name, "Username")), "<success>", name)
    }
  })

  it("binding: Required, invalid username, MaxSize, with the Go field name", () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["", "Username", "[Username]: Required"],
      ["-abc", "Username", "[Username]: invalid username"],
      ["_abc", "Username", "[Username]: invalid username"],
      ["a--b", "Username", "[Username]: invalid username"],
      ["a._b", "Username", "[Username]: invalid username"],
      ["abc.", "Username", "[Username]: invalid username"],
      ["abc_", "UserName", "[UserName]: invalid username"],
      ["a b", "Username", "[Username]: invalid username"],
      ["ünicode", "Username", "[Username]: invalid username"],
      ["abc\n", "Username", "[Username]: invalid username"],
      ["x".repeat(41), "Username", "[Username]: MaxSize"]
    ]
    for (const [value, field, message] of cases) {
      assert.strictEqual(failureMessage(bindUserName(value, field)), message, JSON.stringify(value))
    }
  })

  it("model level: reserved names (lower-cased) and patterns with Forgejo's texts", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["admin", "name is reserved [name: admin]"],
      ["Admin", "name is reserved [name: admin]"],
      ["API", "name is reserved [name: api]"],
      ["ghost", "name is reserved [name: ghost]"],
      ["forgejo-actions", "name is reserved [name: forgejo-actions]"],
      ["favicon.ico", "name is reserved [name: favicon.ico]"],
      ["user.keys", "name pattern is not allowed [pattern: *.keys]"],
      ["user.GPG", "name pattern is not allowed [pattern: *.gpg]"],
      ["feed.rss", "name pattern is not allowed [pattern: *.rss]"],
      ["feed.atom", "name pattern is not allowed [pattern: *.atom]"],
      ["avatar.png", "name pattern is not allowed [pattern: *.png]"],
      // reserved but already broken by the character rule, which Forgejo checks first
      [".", "name is invalid [.]: must be valid alpha or numeric or dash(-_) or dot characters"],
      ["report_abuse", "name is reserved [name: report_abuse]"],
      ["a b", "name is invalid [a b]: must be valid alpha or numeric or dash(-_) or dot characters"]
    ]
    for (const [name, message] of cases) {
      assert.strictEqual(failureMessage(checkUsableUserName(name)), message, name)
    }
    // binding comes first in a request: "admin" passes binding and fails at model level
    assert.strictEqual(failureMessage(parseUserName("admin", "Username")), "name is reserved [name: admin]")
  })

  it("the Schema reports Forgejo's texts", () => {
    const decode = Schema.decodeUnknownResult(UserName)
    const message = (value: string) => {
      const result = decode(value)
      return Result.isFailure(result) ? result.failure.message : "<success>"
    }
    assert.strictEqual(message("user2"), "<success>")
    assert.include(message("admin"), "name is reserved [name: admin]")
    assert.include(message("a--b"), "invalid username")
    assert.include(message("x".repeat(41)), "MaxSize")
  })

  it("every generated valid name passes and round-trips", () => {
    fc.assert(fc.property(validName.filter((n) => !isReserved(n)), (name) => {
      const parsed = Effect.runSync(parseUserName(name, "Username"))
      return parsed === name && Schema.decodeUnknownSync(UserName)(name) === name
    }))
  })

  it("names with a reserved pattern always fail", () => {
    fc.assert(fc.property(alnum, fc.constantFrom(...reservedUserNamePatterns), fc.boolean(), (stem, pattern, upper) => {
      const name = stem + (upper ? pattern.slice(1).toUpperCase() : pattern.slice(1))
      return failureMessage(parseUserName(name, "Username")) === `name pattern is not allowed [pattern: ${pattern}]`
    }))
  })

  it("the canonical form ignores case", () => {
    fc.assert(fc.property(validName, (name) =>
      lowerUserName(name) === lowerUserName(name.toUpperCase()) &&
      lowerUserName(name) === lowerUserName(lowerUserName(name)) &&
      isValidUserName(lowerUserName(name)) === isValidUserName(name)))
  })

  it("the character rule matches Forgejo's two regular expressions", () => {
    fc.assert(fc.property(fc.string({ maxLength: 12, unit: fc.constantFrom("a", "Z", "0", "-", ".", "_", " ", "\u00e9") }), (name) =>
      isValidUserName(name) === (/^[\da-zA-Z][-.\w]*$/.test(name) && !/[-._]{2,}|[-._]$/.test(name))))
  })
})
