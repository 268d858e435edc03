import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { commitStatusSortOf, commitStatusSorts } from "../../src/git/CommitStatusStore.ts"

describe("commit status sorts", () => {
  it("reads Forgejo's sort names and falls back to newest first", () => {
    for (const sort of commitStatusSorts) assert.strictEqual(commitStatusSortOf(sort), sort)
    assert.strictEqual(commitStatusSortOf(""), "newest")
    assert.strictEqual(commitStatusSortOf("Oldest"), "newest")
    fc.assert(fc.property(fc.string(), (text) => commitStatusSorts.includes(commitStatusSortOf(text))))
  })
})
