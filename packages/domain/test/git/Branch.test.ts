import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { type Branch, branchNameOf, branchNamesAmong, compareBranches } from "../../src/git/Branch.ts"
import { notSigned } from "../../src/signing/CommitVerification.ts"

const branch = (name: string, seconds: number): Branch => {
  const actor = { name: "Ada", email: "ada@example.com", when: { seconds, offsetMinutes: 0 } }
  return { name, commitId: "0".repeat(40), message: "m\n", author: actor, committer: actor, verification: notSigned }
}

describe("branch order", () => {
  it("puts the latest head commit first, then names in byte order", () => {
    const sorted = [branch("b", 10), branch("a", 10), branch("z", 20), branch("B", 10)].sort(compareBranches)
    assert.deepStrictEqual(sorted.map((b) => b.name), ["z", "B", "a", "b"])
  })

  it("is a total order: any permutation sorts to the same sequence", () => {
    const entry = fc.record({ name: fc.string({ minLength: 1, maxLength: 6 }), seconds: fc.integer({ min: 0, max: 5 }) })
    fc.assert(fc.property(fc.uniqueArray(entry, { selector: (e) => e.name }), (entries) => {
      const branches = entries.map((e) => branch(e.name, e.seconds))
      const once = [...branches].sort(compareBranches).map((b) => b.name)
      const again = [...branches].reverse().sort(compareBranches).map((b) => b.name)
      const ordered = once.every((name, i) => {
        if (i === 0) return true
        const previous = branches.find((b) => b.name === once[i - 1])
        const current = branches.find((b) => b.name === name)
        return previous !== undefined && current !== undefined && compareBranches(previous, current) < 0
      })
      return ordered && JSON.stringify(once) === JSON.stringify(again)
    }))
  })
})

describe("branch refs", () => {
  it("names the branch of refs/heads/ refs only", () => {
    assert.strictEqual(branchNameOf("refs/heads/main"), "main")
    assert.strictEqual(branchNameOf("refs/heads/feature/x"), "feature/x")
    assert.strictEqual(branchNameOf("refs/tags/v1"), undefined)
    assert.strictEqual(branchNameOf("refs/heads/"), undefined)
    assert.strictEqual(branchNameOf("HEAD"), undefined)
  })

  it("lists the branches among refs that git accepts, sorted", () => {
    const refs = ["refs/tags/v1", "refs/heads/z", "HEAD", "refs/heads/a/b", "refs/heads/bad..name", "refs/heads/", "refs/heads/B"]
    assert.deepStrictEqual(branchNamesAmong(refs), ["B", "a/b", "z"])
  })
})
