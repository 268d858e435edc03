import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import {
  type AccessTokenScope,
  accessTokenScopes,
  hasScopes,
  isPublicOnly,
  normalizeScopes,
  parseAccessTokenScopes,
  requiredScopeMessage,
  requireScopes,
  type RequiredScope,
  scopeCategories,
  scopeFor,
  scopeLevelForMethod
} from "../../src/auth/AccessTokenScope.ts"

const parse = (requested: ReadonlyArray<string>) => Effect.runSync(parseAccessTokenScopes(requested))
const parseError = (requested: ReadonlyArray<string>) => Effect.runSync(Effect.flip(parseAccessTokenScopes(requested))).message

const allRequired: ReadonlyArray<RequiredScope> = scopeCategories.flatMap((category) => [
  { category, level: "read" as const },
  { category, level: "write" as const }
])
const scope = fc.constantFrom(...accessTokenScopes)
const scopeList = fc.array(scope, { maxLength: 12 })
const required = fc.array(fc.constantFrom(...allRequired), { maxLength: 4 })

describe("AccessTokenScope", () => {
  it("normalises like Forgejo", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
      [["all"], ["all"]],
      [scopeCategories.map((c) => `write:${c}`), ["all"]],
      [[...scopeCategories.map((c) => `read:${c}`), ...scopeCategories.map((c) => `write:${c}`)], ["all"]],
      [["all", "read:user", "write:admin"], ["all"]],
      [["public-only", "all"], ["public-only", "all"]],
      [["read:user", "write:user"], ["write:user"]],
      [["read:user", "read:user"], ["read:user"]],
      [["read:repository", "write:admin", "public-only"], ["public-only", "write:admin", "read:repository"]],
      [["read:user", "read:repository", "read:issue", "read:activitypub"],
        ["read:activitypub", "read:issue", "read:repository", "read:user"]],
      [["read:user,write:admin"], ["write:admin", "read:user"]],
      [["sudo", "read:misc", ""], ["read:misc"]],
      [["write:package", "read:notification", "write:organization"],
        ["read:notification", "write:organization", "write:package"]],
      // every write but one: no collapse
      [scopeCategories.filter((c) => c !== "misc").map((c) => `write:${c}`),
        scopeCategories.filter((c) => c !== "misc").map((c) => `write:${c}`)],
      [[...scopeCategories.filter((c) => c !== "misc").map((c) => `write:${c}`), "read:misc"],
        [...scopeCategories.filter((c) => c !== "misc").map((c) => `write:${c}`).slice(0, 2), "read:misc",
          ...scopeCategories.filter((c) => c !== "misc").map((c) => `write:${c}`).slice(2)]]
    ]
    for (const [input, expected] of cases) assert.deepStrictEqual(parse(input), expected, input.join(","))
  })

  it("rejects what Forgejo rejects, with its texts", () => {
    assert.strictEqual(parseError(["bogus"]), "invalid access token scope provided: invalid access token scope: bogus")
    assert.strictEqual(parseError(["read:user", "write:gist"]),
      "invalid access token scope provided: invalid access token scope: write:gist")
    assert.strictEqual(parseError([" read:user"]),
      "invalid access token scope provided: invalid access token scope:  read:user")
    assert.strictEqual(parseError(["sudo", "nope"]), "invalid access token scope provided: invalid access token scope: nope")
    assert.strictEqual(parseError([]), "access token must have a scope")
    assert.strictEqual(parseError(["sudo"]), "access token must have a scope")
    assert.strictEqual(parseError(["", ","]), "access token must have a scope")
  })

  it("checks required scopes and words the 403 like Forgejo", () => {
    assert.isTrue(hasScopes(["all"], allRequired))
    assert.isTrue(hasScopes(["write:admin"], [{ category: "admin", level: "read" }]))
    assert.isFalse(hasScopes(["read:admin"], [{ category: "admin", level: "write" }]))
    assert.isFalse(hasScopes(["write:organization"], [
      { category: "organization", level: "write" },
      { category: "repository", level: "write" }
    ]))
    assert.isTrue(hasScopes([], []))
    assert.isFalse(hasScopes(["public-only"], [{ category: "user", level: "read" }]))
    assert.strictEqual(requiredScopeMessage([{ category: "admin", level: "read" }]),
      "token does not have at least one of required scope(s): [read:admin]")
    assert.strictEqual(requiredScopeMessage([
      { category: "organization", level: "write" },
      { category: "repository", level: "write" }
    ]), "token does not have at least one of required scope(s): [write:organization write:repository]")
    assert.strictEqual(requiredScopeMessage([{ category: "user", level: "read" }, { category: "repository", level: "read" }]),
      "token does not have at least one of required scope(s): [read:user read:repository]")
    const denied = Effect.runSync(Effect.flip(requireScopes(["read:user"], [{ category: "admin", level: "read" }])))
    assert.strictEqual(denied._tag, "Forbidden")
    assert.strictEqual(denied.message, "token does not have at least one of required scope(s): [read:admin]")
    Effect.runSync(requireScopes(["read:user"], []))
  })

  it("TOK-06: a token with every scope except the required one is refused (write keeps read)", () => {
    for (const need of allRequired) {
      const others = accessTokenScopes.filter((s): s is AccessTokenScope =>
        s !== "all" && s !== "public-only" && !s.endsWith(`:${need.category}`))
      const token = need.level === "write" ? [...others, scopeFor(need.category, "read")] : others
      assert.isFalse(hasScopes(normalizeScopes(token), [need]), `${need.level}:${need.category}`)
      assert.isTrue(hasScopes(normalizeScopes([...token, scopeFor(need.category, need.level)]), [need]))
    }
  })

  it("reads levels from HTTP methods and spots public-only tokens", () => {
    assert.strictEqual(scopeLevelForMethod("GET"), "read")
    assert.strictEqual(scopeLevelForMethod("HEAD"), "read")
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) assert.strictEqual(scopeLevelForMethod(method), "write")
    assert.isTrue(isPublicOnly(["public-only", "read:repository"]))
    assert.isFalse(isPublicOnly(["all"]))
  })

  it("normalising is idempotent", () => {
    fc.assert(fc.property(scopeList, (scopes) => {
      const once = normalizeScopes(scopes)
      assert.deepStrictEqual(normalizeScopes(once), once)
    }))
  })

  it("normalising does not depend on order or repetition", () => {
    fc.assert(fc.property(scopeList, fc.func(fc.integer()), (scopes, key) => {
      const shuffled = [...scopes, ...scopes].sort((a, b) => key(a) - key(b))
      assert.deepStrictEqual(normalizeScopes(shuffled), normalizeScopes(scopes))
    }))
  })

  it("normalising never widens or narrows what a token allows", () => {
    fc.assert(fc.property(scopeList, required, (scopes, need) => {
      const normalized = normalizeScopes(scopes)
      assert.strictEqual(hasScopes(normalized, need), hasScopes(scopes, need))
      assert.strictEqual(isPublicOnly(normalized), isPublicOnly(scopes))
      for (const single of allRequired) assert.strictEqual(hasScopes(normalized, [single]), hasScopes(scopes, [single]))
    }))
  })

  it("normalised lists are minimal and in Forgejo's order", () => {
    const order = ["public-only", "all", ...scopeCategories.flatMap((c) => [`write:${c}`, `read:${c}`])]
    fc.assert(fc.property(scopeList, (scopes) => {
      const normalized = normalizeScopes(scopes)
      const positions = normalized.map((s) => order.indexOf(s))
      assert.deepStrictEqual(positions, [...positions].sort((a, b) => a - b))
      // dropping any scope changes what the list allows
      for (const index of normalized.keys()) {
        const without = normalized.filter((_, i) => i !== index)
        const same = allRequired.every((r) => hasScopes(without, [r]) === hasScopes(normalized, [r])) &&
          isPublicOnly(without) === isPublicOnly(normalized)
        assert.isFalse(same, normalized.join(","))
      }
    }))
  })
})
