import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { diffRefs, refUpdateKind, ZeroId } from "../../src/git/RefUpdate.ts"

const objectId = fc.constantFrom("1".repeat(40), "2".repeat(40), "3".repeat(40))
const snapshot = fc
  .dictionary(fc.constantFrom("refs/heads/a", "refs/heads/b", "refs/tags/t", "refs/heads/x/y"), objectId)
  .map((record) => new Map(Object.entries(record)))

const apply = (refs: ReadonlyMap<string, string>, updates: ReturnType<typeof diffRefs>) => {
  const result = new Map(refs)
  for (const { ref, newId } of updates) {
    if (newId === ZeroId) result.delete(ref)
    else result.set(ref, newId)
  }
  return result
}

describe("diffRefs", () => {
  it("its updates turn the old snapshot into the new one", () => {
    fc.assert(fc.property(snapshot, snapshot, (before, after) => {
      const updates = diffRefs(before, after)
      assert.deepStrictEqual(apply(before, updates), after)
      // every update starts from what the old snapshot held and changes something
      for (const u of updates) {
        assert.strictEqual(u.oldId, before.get(u.ref) ?? ZeroId)
        assert.notStrictEqual(u.oldId, u.newId)
      }
    }))
  })

  it("finds nothing between equal snapshots", () => {
    fc.assert(fc.property(snapshot, (refs) => diffRefs(refs, new Map(refs)).length === 0))
  })

  it("classifies creations, updates and deletions", () => {
    const updates = diffRefs(
      new Map([["refs/heads/a", "1".repeat(40)], ["refs/heads/b", "2".repeat(40)]]),
      new Map([["refs/heads/b", "3".repeat(40)], ["refs/heads/c", "1".repeat(40)]])
    )
    assert.deepStrictEqual(updates.map((u) => [u.ref, refUpdateKind(u)]), [
      ["refs/heads/a", "delete"],
      ["refs/heads/b", "update"],
      ["refs/heads/c", "create"]
    ])
  })
})
