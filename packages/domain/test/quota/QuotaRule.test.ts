import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import fc from "fast-check"
import { makeGroup, QuotaGroup } from "../../src/quota/QuotaGroup.ts"
import { applyRuleEdit, makeRule, makeRuleEdit, QuotaLimit, QuotaRule } from "../../src/quota/QuotaRule.ts"
import * as Arb from "./QuotaArbitraries.ts"

const isLimit = Schema.is(QuotaLimit)

describe("QuotaLimit", () => {
  it("accepts integers of the int64 range and -1", () => {
    for (const n of [-1, 0, 1024, 15 * 1024 * 1024, Number.MAX_SAFE_INTEGER, 2 ** 62, 2 ** 63 - 1024, -(2 ** 63)]) {
      assert.isTrue(isLimit(n), String(n))
    }
  })

  it("rejects fractions, non-finite numbers and integers outside int64 (MaxInt64 reads as 2^63)", () => {
    for (const n of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 63, 9223372036854775807, -(2 ** 64)]) {
      assert.isFalse(isLimit(n), String(n))
    }
  })
})

describe("QuotaRule and QuotaGroup", () => {
  it("generated rules and groups are valid entities", () => {
    fc.assert(fc.property(Arb.group, (g) => {
      assert.isTrue(Schema.is(QuotaGroup)(g))
      for (const r of g.rules) assert.isTrue(Schema.is(QuotaRule)(r))
    }))
  })

  it("an omitted limit is 0 and omitted subjects are none", () => {
    assert.deepStrictEqual(Effect.runSync(makeRule({ name: "new-rule" })), { name: "new-rule", limit: 0, subjects: [] })
  })

  it("a definition with known subjects becomes the rule it describes", () => {
    fc.assert(fc.property(Arb.rule, (r) => {
      assert.deepStrictEqual(Effect.runSync(makeRule({ name: r.name, limit: r.limit, subjects: r.subjects })), r)
    }))
  })

  it("an unknown subject in a rule body is Invalid (QM-03, QM-05)", () => {
    fc.assert(fc.property(Arb.name, Arb.unknownSubject, (n, bad) => {
      const error = Effect.runSync(Effect.flip(makeRule({ name: n, subjects: ["size:all", bad] })))
      assert.strictEqual(error.message, `unrecognized quota limit subject: [subject: ${bad}]`)
    }))
    const inGroup = Effect.runSync(Effect.flip(makeGroup({
      name: "group-with-invalid-rule-spec",
      rules: [{ name: "rule-with-wrong-spec", subjects: ["valid:false"] }]
    })))
    assert.strictEqual(inGroup.message, "unrecognized quota limit subject: [subject: valid:false]")
  })

  it("an empty name or a limit outside int64 is Invalid", () => {
    assert.strictEqual(Effect.runSync(Effect.flip(makeRule({ name: "" }))).message, "[Name]: Required")
    assert.strictEqual(Effect.runSync(Effect.flip(makeGroup({ name: "" }))).message, "[Name]: Required")
    assert.strictEqual(Effect.runSync(Effect.flip(makeRule({ name: "x", limit: 0.5 }))).field, "limit")
  })

  it("a group definition without rules is a group without rules (QM-09)", () => {
    assert.deepStrictEqual(Effect.runSync(makeGroup({ name: "default" })), { name: "default", rules: [] })
  })

  it("an edit changes exactly the fields it carries", () => {
    fc.assert(fc.property(
      Arb.rule,
      fc.option(Arb.limit, { nil: undefined }),
      fc.option(fc.array(Arb.subject), { nil: undefined }),
      (r, limit, subjects) => {
        const edit = Effect.runSync(makeRuleEdit({ limit, subjects }))
        const edited = applyRuleEdit(r, edit)
        assert.strictEqual(edited.name, r.name)
        assert.strictEqual(edited.limit, limit ?? r.limit)
        assert.deepStrictEqual(edited.subjects, subjects ?? r.subjects)
      }
    ))
  })

  it("an edit with an unknown subject is Invalid (QM-07)", () => {
    const error = Effect.runSync(Effect.flip(makeRuleEdit({ subjects: ["valid:false"] })))
    assert.strictEqual(error.message, "unrecognized quota limit subject: [subject: valid:false]")
  })
})
