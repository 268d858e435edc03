import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { bindTeamName, checkUsableTeamName, lowerTeamName, parseTeamName } from "../../src/org/TeamName.ts"

const error = <A>(effect: Effect.Effect<A, { readonly message: string }>) => Effect.runSync(Effect.flip(effect)).message

describe("TeamName", () => {
  it("binding: Required, AlphaDashDot, MaxSize(255)", () => {
    assert.strictEqual(Effect.runSync(parseTeamName("test_team", "Name")), "test_team")
    assert.strictEqual(Effect.runSync(parseTeamName("x".repeat(255), "Name")).length, 255)
    assert.strictEqual(error(bindTeamName("", "Name")), "[Name]: Required")
    assert.strictEqual(error(bindTeamName("my team", "Name")), "[Name]: AlphaDashDot")
    assert.strictEqual(error(bindTeamName("x".repeat(256), "Name")), "[Name]: MaxSize")
  })

  it("reserves exactly `new` (case-sensitive, as Forgejo)", () => {
    assert.strictEqual(error(checkUsableTeamName("new")), "name is reserved [name: new]")
    assert.strictEqual(Effect.runSync(checkUsableTeamName("New")), "New")
    assert.strictEqual(lowerTeamName("Owners"), "owners")
  })
})
