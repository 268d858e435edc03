import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import * as fc from "fast-check"
import {
  bindRepositoryName,
  checkUsableRepositoryName,
  lowerRepositoryName,
  parseRepositoryName,
  RepositoryName
} from "../../src/repo/RepositoryName.ts"

const error = <A>(effect: Effect.Effect<A, { readonly message: string }>) => Effect.runSync(Effect.flip(effect)).message

describe("RepositoryName", () => {
  it("accepts AlphaDashDot names up to 100 characters", () => {
    for (const name of ["repo1", "admincreatedrepo", "my.repo", "_x", "-x", ".hidden", "a--b", "x".repeat(100)]) {
      assert.strictEqual(Effect.runSync(parseRepositoryName(name, "Name")), name)
    }
  })

  it("binding: Required, AlphaDashDot, MaxSize", () => {
    assert.strictEqual(error(bindRepositoryName("", "Name")), "[Name]: Required")
    assert.strictEqual(error(bindRepositoryName("a b", "Name")), "[Name]: AlphaDashDot")
    assert.strictEqual(error(bindRepositoryName("réo", "RepoName")), "[RepoName]: AlphaDashDot")
    assert.strictEqual(error(bindRepositoryName("x".repeat(101), "Name")), "[Name]: MaxSize")
  })

  it("model level: reserved names and case-insensitive patterns", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [".", "name is reserved [name: .]"],
      ["..", "name is reserved [name: ..]"],
      ["-", "name is reserved [name: -]"],
      ["repo.git", "name pattern is not allowed [pattern: *.git]"],
      ["Repo.GIT", "name pattern is not allowed [pattern: *.git]"],
      ["x.wiki", "name pattern is not allowed [pattern: *.wiki]"],
      ["x.rss", "name pattern is not allowed [pattern: *.rss]"],
      ["x.Atom", "name pattern is not allowed [pattern: *.atom]"],
      ["a/b", "name is invalid [a/b]: must be valid alpha or numeric or dash(-_) or dot characters"]
    ]
    for (const [name, message] of cases) assert.strictEqual(error(checkUsableRepositoryName(name)), message, name)
    assert.strictEqual(error(parseRepositoryName("x.git", "Name")), "name pattern is not allowed [pattern: *.git]")
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(RepositoryName)("x.git")))
  })

  it("patterns always fail and lower-casing is the uniqueness key", () => {
    fc.assert(fc.property(
      fc.stringMatching(/^[A-Za-z0-9_]{1,20}$/),
      fc.constantFrom(".git", ".wiki", ".rss", ".atom", ".GIT", ".Wiki"),
      (stem, suffix) => Result.isFailure(Effect.runSync(Effect.result(parseRepositoryName(stem + suffix, "Name"))))
    ))
    fc.assert(fc.property(fc.stringMatching(/^[A-Za-z0-9_]{1,20}$/), (name) =>
      lowerRepositoryName(name) === lowerRepositoryName(name.toUpperCase())))
  })
})
