/**
 * The glob matcher behind branch filters, host globs, migration domains and the unadopted pattern:
 * it agrees with the regular-expression translation it replaced on ordinary patterns, and answers
 * at once where that translation backtracked for minutes (security review 4b30e64, finding 23).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { globPatternError } from "../../src/org/GlobPattern.ts"
import { compileNameGlob, globLengthError, MAX_GLOB_LENGTH, nameGlob, quoteGlob } from "../../src/repo/NameGlob.ts"
import { isHostAllowed } from "../../src/repo/MigrationHostPolicy.ts"
import { branchAllowed } from "../../src/webhook/HookEvent.ts"
import { allowsConnection, parseAllowedHosts } from "../../src/webhook/AllowedHosts.ts"

/** The translation to a JavaScript RegExp that NameGlob used before (the oracle for ordinary patterns). */
const regExpGlob = (pattern: string): (name: string) => boolean => {
  const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")
  const escapeClassMember = (text: string) => text.replace(/[\\\]^-]/g, "\\$&")
  const chars = [...pattern]
  let out = ""
  let depth = 0
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? ""
    if (c === "\\") out += escapeRegExp(chars[++i] ?? "")
    else if (c === "*") out += "[^]*"
    else if (c === "?") out += "[^]"
    else if (c === "[") {
      const close = chars.indexOf("]", i + 1)
      const body = chars.slice(i + 1, close)
      const negated = body[0] === "!"
      const members = (negated ? body.slice(1) : body)
        .map((member, index, all) => (member === "-" && index > 0 && index < all.length - 1 ? "-" : escapeClassMember(member))).join("")
      out += negated ? `[^${members}]` : `[${members}]`
      i = close
    } else if (c === "{") {
      depth++
      out += "(?:"
    } else if (c === "," && depth > 0) {
      out += "|"
    } else if (c === "}" && depth > 0) {
      depth--
      out += ")"
    } else out += escapeRegExp(c)
  }
  const regExp = new RegExp(`^(?:${out}${")".repeat(depth)})$`, "u")
  return (name) => regExp.test(name)
}

/** Small patterns over a small alphabet, in the forms both implementations read alike. */
const alphabet = ["a", "b", "é", "-", "/", "."]
const atom: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...alphabet),
  fc.constantFrom("*", "**", "?"),
  fc.constantFrom("\\*", "\\?", "\\{", "\\,"),
  fc.subarray(["a", "b", "é", "/"], { minLength: 1 }).map((members) => `[${members.join("")}]`),
  fc.subarray(["a", "b", "é", "/"], { minLength: 1 }).map((members) => `[!${members.join("")}]`),
  fc.constantFrom("[a-b]", "[!a-b]", "[a-é]")
)
const pattern: fc.Arbitrary<string> = fc.letrec<{ pattern: string; braces: string }>((tie) => ({
  pattern: fc.array(fc.oneof({ weight: 4, arbitrary: atom }, { weight: 1, arbitrary: tie("braces") }), { maxLength: 6 })
    .map((parts) => parts.join("")),
  braces: fc.array(tie("pattern"), { minLength: 1, maxLength: 3 }).map((alternatives) => `{${alternatives.join(",")}}`)
})).pattern
const name = fc.array(fc.constantFrom(...alphabet, "*", "?", "{", ","), { maxLength: 10 }).map((chars) => chars.join(""))

describe("compileNameGlob", () => {
  it("property: agrees with the old regular-expression translation on ordinary patterns", () => {
    fc.assert(fc.property(pattern, fc.array(name, { minLength: 1, maxLength: 8 }), (glob, names) => {
      const compiled = compileNameGlob(glob)
      expect(compiled).toBeDefined()
      const oracle = regExpGlob(glob)
      for (const candidate of names) expect([glob, candidate, compiled?.(candidate)]).toEqual([glob, candidate, oracle(candidate)])
    }), { numRuns: 2_000 })
  })

  it("property: a name built to fit a pattern matches it", () => {
    // Each atom paired with a text it matches; the name is their concatenation.
    const fitting = fc.array(fc.oneof(
      fc.tuple(fc.constantFrom("a", "é"), fc.constant("")).map(([c]) => [c, c] as const),
      fc.string({ maxLength: 4 }).map((text) => ["*", text] as const),
      fc.string({ minLength: 1, maxLength: 1 }).map((text) => ["?", text] as const),
      fc.constantFrom("a", "b").map((c) => ["{a,b}", c] as const),
      fc.constantFrom("x", "y").map((c) => ["[x-z]", c] as const)
    ), { maxLength: 8 })
    fc.assert(fc.property(fitting, (parts) => {
      const glob = parts.map(([part]) => part).join("")
      expect(compileNameGlob(glob)?.(parts.map(([, text]) => text).join(""))).toBe(true)
    }))
  })

  it("reads gobwas syntax where the old translation did not: an escaped ] and a - inside a list", () => {
    expect(compileNameGlob("[\\]]x")?.("]x")).toBe(true)
    expect(compileNameGlob("[ab-d]")?.("c")).toBe(false)
    expect(compileNameGlob("[ab-d]")?.("-")).toBe(true)
    expect(compileNameGlob("{a,b")?.("b")).toBe(true)
    expect(compileNameGlob("a}")?.("a}")).toBe(true)
  })

  it("is undefined for a pattern gobwas would not compile; nameGlob then matches everything", () => {
    expect(compileNameGlob("[")).toBeUndefined()
    expect(compileNameGlob("[z-a]")).toBeUndefined()
    expect(nameGlob("[")("x")).toBe(true)
  })

  it("answers the backtracking patterns at once (a hang guard, not a timing)", () => {
    const hostile = "*a*a*a*a*a*a*a*a*b"
    const started = Date.now()
    expect(compileNameGlob(hostile)?.("a".repeat(48))).toBe(false)
    // The old translation took 17 s here (2 s at 40, 43 s or more at 64): it fails this check
    // rather than go on to what would never end.
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(compileNameGlob(hostile)?.("a".repeat(64))).toBe(false)
    expect(branchAllowed(hostile, "a".repeat(64))).toBe(false)
    // The longest pattern a caller may give against a long name.
    const longest = "*a".repeat(MAX_GLOB_LENGTH / 2 - 1) + "*b"
    expect(compileNameGlob(longest)?.("a".repeat(4096))).toBe(false)
    expect(compileNameGlob("{*a,*a*}".repeat(30) + "b")?.("a".repeat(2000))).toBe(false)
    expect(isHostAllowed({ allowLocal: false, allowedDomains: [hostile], allowLocalPaths: false, maxSize: 0 }, "a".repeat(64), ["93.184.216.34"]))
      .toBe(false)
    expect(allowsConnection(parseAllowedHosts(hostile), "a".repeat(64), "127.0.0.1")).toBe(false)
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

describe("the users of the matcher", () => {
  it("a branch filter that does not compile lets no branch through (Forgejo's checkBranch)", () => {
    expect(branchAllowed("[z-a]", "main")).toBe(false)
    expect(branchAllowed("", "main")).toBe(true)
    expect(branchAllowed("{main,release/*}", "release/1.0")).toBe(true)
  })

  it("a host glob that does not compile allows no host", () => {
    expect(allowsConnection(parseAllowedHosts("[z-a]"), "anything.example", "127.0.0.1")).toBe(false)
  })

  it("migration domains take * as the only wildcard, everything else literally", () => {
    const settings = (domain: string) => ({ allowLocal: false, allowedDomains: [domain], allowLocalPaths: false, maxSize: 0 })
    const external = ["93.184.216.34"]
    expect(isHostAllowed(settings("*.example.com"), "git.example.com", external)).toBe(true)
    expect(isHostAllowed(settings("*.example.com"), "example.com", external)).toBe(false)
    expect(isHostAllowed(settings("git?.example.com"), "gitx.example.com", external)).toBe(false)
    expect(isHostAllowed(settings("git?.example.com"), "git?.example.com", external)).toBe(true)
    expect(isHostAllowed(settings("{a,b}.example"), "{a,b}.example", external)).toBe(true)
  })

  it("bounds the pattern length", () => {
    expect(globLengthError("*".repeat(MAX_GLOB_LENGTH))).toBeUndefined()
    expect(globLengthError("é".repeat(MAX_GLOB_LENGTH + 1))).toBe(`pattern is longer than ${MAX_GLOB_LENGTH} characters`)
  })

  it("quoteGlob makes a pattern that matches its text and nothing else", () => {
    fc.assert(fc.property(fc.string(), (text) => {
      const glob = nameGlob(quoteGlob(text))
      expect(glob(text)).toBe(true)
      expect(glob(`${text}x`)).toBe(false)
      expect(globPatternError(quoteGlob(text))).toBeUndefined()
    }))
  })
})
