import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { combinedState, commitStates, latestPerContext } from "../../src/git/CommitStatus.ts"

const state = fc.constantFrom(...commitStates)
const order = ["error", "failure", "warning", "pending", "success"]
const reported = (value: string) => value === "error" ? "failure" : value

describe("combined commit status", () => {
  it("is the worst state, with error reported as failure", () => {
    assert.strictEqual(combinedState([{ state: "success" }, { state: "pending" }]), "pending")
    assert.strictEqual(combinedState([{ state: "success" }, { state: "warning" }, { state: "pending" }]), "warning")
    assert.strictEqual(combinedState([{ state: "failure" }, { state: "error" }]), "failure")
    assert.strictEqual(combinedState([{ state: "error" }]), "failure")
    assert.strictEqual(combinedState([]), "")
  })

  it("ignores unknown states unless nothing else is there", () => {
    assert.strictEqual(combinedState([{ state: "bogus" }, { state: "success" }]), "success")
    assert.strictEqual(combinedState([{ state: "bogus" }, { state: "other" }]), "bogus")
  })

  it("never depends on the order of the statuses, and is never better than any of them", () => {
    fc.assert(fc.property(fc.array(state, { minLength: 1 }), (states) => {
      const combined = combinedState(states.map((s) => ({ state: s })))
      const reversed = combinedState([...states].reverse().map((s) => ({ state: s })))
      const worst = states.reduce((a, b) => order.indexOf(a) <= order.indexOf(b) ? a : b)
      return combined === reversed && combined === reported(worst)
    }))
  })

  it("takes the latest status of each context", () => {
    const statuses = [
      { context: "ci", index: 1, state: "pending" },
      { context: "lint", index: 2, state: "failure" },
      { context: "ci", index: 3, state: "success" },
      { context: "lint", index: 4, state: "success" }
    ]
    assert.deepStrictEqual(latestPerContext(statuses).map((s) => s.index), [3, 4])
    fc.assert(fc.property(
      fc.array(fc.record({ context: fc.constantFrom("a", "b", "c"), state }), { maxLength: 30 }),
      (items) => {
        const indexed = items.map((item, i) => ({ ...item, index: i + 1 }))
        const latest = latestPerContext(indexed)
        const contexts = new Set(indexed.map((s) => s.context))
        return latest.length === contexts.size &&
          latest.every((s) => indexed.every((other) => other.context !== s.context || other.index <= s.index))
      }
    ))
  })
})
