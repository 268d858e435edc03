import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  effectiveGroups,
  groupStands,
  isOverQuota,
  ruleApplies,
  ruleStands,
  ruleUsage
} from "../../src/quota/QuotaEvaluation.ts"
import type { QuotaGroup } from "../../src/quota/QuotaGroup.ts"
import { unlimited } from "../../src/quota/QuotaRule.ts"
import { isWikiSubject, overlaps } from "../../src/quota/Subject.ts"
import { usageOf } from "../../src/quota/Usage.ts"
import * as Arb from "./QuotaArbitraries.ts"

/** Every permutation of the items, for order properties. */
const shuffled = <A>(items: ReadonlyArray<A>) =>
  fc.shuffledSubarray([...items], { minLength: items.length, maxLength: items.length })

describe("rules", () => {
  it("a rule stands when unlimited or when the summed usage of its subjects is strictly below its limit", () => {
    fc.assert(fc.property(Arb.rule, Arb.usage, (r, u) => {
      const sum = r.subjects.reduce((acc, s) => acc + usageOf(u, s), 0)
      assert.strictEqual(ruleUsage(r, u), sum)
      assert.strictEqual(ruleStands(r, u), r.limit === -1 || sum < r.limit)
    }))
  })

  it("at the limit a rule no longer stands (the spec's 'below'; Forgejo accepts equality)", () => {
    assert.isFalse(ruleStands({ name: "r", limit: 10, subjects: ["size:all"] }, { ...zero, reposPublic: 10 }))
    assert.isTrue(ruleStands({ name: "r", limit: 11, subjects: ["size:all"] }, { ...zero, reposPublic: 10 }))
  })

  it("a limit of 0 never stands, not even with no usage", () => {
    fc.assert(fc.property(fc.array(Arb.subject), Arb.usage, (subjects, u) => {
      assert.isFalse(ruleStands({ name: "deny-all", limit: 0, subjects }, u))
    }))
  })

  it("an unlimited rule always stands", () => {
    fc.assert(fc.property(Arb.unlimitedRule, Arb.usage, (r, u) => assert.isTrue(ruleStands(r, u))))
  })

  it("a rule applies to a subject exactly when one of its subjects shares data with it", () => {
    fc.assert(fc.property(Arb.rule, Arb.subject, (r, s) => {
      assert.strictEqual(ruleApplies(r, s), r.subjects.some((rs) => overlaps(rs, s)))
    }))
    const onAll = { name: "all", limit: 0, subjects: ["size:all" as const] }
    const onPublic = { name: "pub", limit: 0, subjects: ["size:repos:public" as const] }
    const onLfs = { name: "lfs", limit: 0, subjects: ["size:git:lfs" as const] }
    assert.isTrue(ruleApplies(onAll, "size:repos:public")) // a containing subject
    assert.isTrue(ruleApplies(onPublic, "size:all")) // a part of the subject
    assert.isFalse(ruleApplies(onLfs, "size:repos:all")) // disjoint data
    assert.isFalse(ruleApplies(onAll, "size:wiki"))
  })
})

describe("groups", () => {
  it("a group stands for S when every rule of it that applies to S stands", () => {
    fc.assert(fc.property(Arb.group, Arb.usage, Arb.subject, (g, u, s) => {
      const applicable = g.rules.filter((r) => ruleApplies(r, s))
      assert.strictEqual(groupStands(g, u, s), applicable.every((r) => ruleStands(r, u)))
    }))
  })

  it("a group with no rule that applies to S sets no limit on S", () => {
    fc.assert(fc.property(Arb.group, Arb.usage, Arb.subject, (g, u, s) => {
      const unrelated: QuotaGroup = { name: g.name, rules: g.rules.filter((r) => !ruleApplies(r, s)) }
      assert.isTrue(groupStands(unrelated, u, s))
    }))
  })

  it("adding a rule to a group never turns over into within", () => {
    fc.assert(fc.property(Arb.group, Arb.rule, Arb.usage, Arb.subject, (g, r, u, s) => {
      const bigger: QuotaGroup = { name: g.name, rules: [...g.rules, r] }
      if (!groupStands(g, u, s)) assert.isFalse(groupStands(bigger, u, s))
    }))
  })
})

describe("isOverQuota", () => {
  it("an owner is over quota for S when it has groups and none of them stands for S (wiki aside)", () => {
    fc.assert(fc.property(Arb.groups, Arb.usage, Arb.subject, (gs, u, s) => {
      const expected = !isWikiSubject(s) && gs.length > 0 && gs.every((g) => !groupStands(g, u, s))
      assert.strictEqual(isOverQuota(gs, u, s), expected)
    }))
  })

  it("an owner with no groups is never over quota", () => {
    fc.assert(fc.property(Arb.usage, Arb.subject, (u, s) => assert.isFalse(isOverQuota([], u, s))))
  })

  it("size:wiki is never over quota", () => {
    fc.assert(fc.property(Arb.groups, Arb.usage, (gs, u) => assert.isFalse(isOverQuota(gs, u, "size:wiki"))))
  })

  it("more usage never turns over quota into within", () => {
    fc.assert(fc.property(Arb.groups, Arb.usageAndMore, Arb.subject, (gs, [small, big], s) => {
      if (isOverQuota(gs, small, s)) assert.isTrue(isOverQuota(gs, big, s))
    }))
  })

  it("adding a group to a non-empty list never turns within into over", () => {
    fc.assert(fc.property(Arb.nonEmptyGroups, Arb.group, Arb.usage, Arb.subject, (gs, g, u, s) => {
      if (!isOverQuota(gs, u, s)) assert.isFalse(isOverQuota([...gs, g], u, s))
    }))
  })

  it("adding a rule to a group never turns over into within", () => {
    fc.assert(fc.property(
      Arb.nonEmptyGroups,
      fc.nat(),
      Arb.rule,
      Arb.usage,
      Arb.subject,
      (gs, at, r, u, s) => {
        const i = at % gs.length
        const changed = gs.map((g, j) => (j === i ? { name: g.name, rules: [...g.rules, r] } : g))
        if (isOverQuota(gs, u, s)) assert.isTrue(isOverQuota(changed, u, s))
      }
    ))
  })

  it("an unlimited rule never changes an answer", () => {
    fc.assert(fc.property(
      Arb.nonEmptyGroups,
      fc.nat(),
      Arb.unlimitedRule,
      Arb.usage,
      Arb.subject,
      (gs, at, r, u, s) => {
        const i = at % gs.length
        const changed = gs.map((g, j) => (j === i ? { name: g.name, rules: [...g.rules, r] } : g))
        assert.strictEqual(isOverQuota(changed, u, s), isOverQuota(gs, u, s))
      }
    ))
  })

  it("a rule on data disjoint from S never changes the answer for S", () => {
    fc.assert(fc.property(Arb.nonEmptyGroups, Arb.rule, Arb.usage, Arb.subject, (gs, r, u, s) => {
      fc.pre(!ruleApplies(r, s))
      const changed = gs.map((g) => ({ name: g.name, rules: [r, ...g.rules] }))
      assert.strictEqual(isOverQuota(changed, u, s), isOverQuota(gs, u, s))
    }))
  })

  it("the order of rules and of groups never matters", () => {
    fc.assert(fc.property(
      Arb.groups.chain((gs) =>
        fc.tuple(
          fc.constant(gs),
          shuffled(gs).chain((order) =>
            fc.tuple(...order.map((g) => shuffled(g.rules).map((rules) => ({ name: g.name, rules }))))
          )
        )
      ),
      Arb.usage,
      Arb.subject,
      ([gs, reordered], u, s) => {
        assert.strictEqual(isOverQuota(reordered, u, s), isOverQuota(gs, u, s))
      }
    ))
  })

  it("one group with one limited rule: over exactly when the rule shares data with S and is used up", () => {
    fc.assert(fc.property(Arb.rule, Arb.usage, Arb.subject, (r, u, s) => {
      fc.pre(r.limit !== unlimited && !isWikiSubject(s))
      const over = isOverQuota([{ name: "g", rules: [r] }], u, s)
      assert.strictEqual(over, ruleApplies(r, s) && ruleUsage(r, u) >= r.limit)
    }))
  })

  it("both outcomes occur under the generators (the properties above are not vacuous)", () => {
    const samples = fc.sample(fc.tuple(Arb.nonEmptyGroups, Arb.usage, Arb.subject), 500)
    const answers = samples.map(([gs, u, s]) => isOverQuota(gs, u, s))
    assert.isTrue(answers.includes(true))
    assert.isTrue(answers.includes(false))
  })
})

describe("effectiveGroups", () => {
  const g = (name: string): QuotaGroup => ({ name, rules: [] })

  it("assigned groups win over the defaults", () => {
    fc.assert(fc.property(Arb.nonEmptyGroups, fc.array(Arb.name), Arb.groups, (assigned, names, existing) => {
      assert.deepStrictEqual(effectiveGroups(assigned, names, existing), assigned)
    }))
  })

  it("without assigned groups, the existing groups named in the defaults, unknown names ignored", () => {
    const existing = [g("a"), g("b"), g("c")]
    assert.deepStrictEqual(effectiveGroups([], ["c", "missing", "a", "c"], existing), [g("c"), g("a")])
    assert.deepStrictEqual(effectiveGroups([], ["missing"], existing), [])
    assert.deepStrictEqual(effectiveGroups([], [], existing), [])
  })

  it("every effective group is assigned or an existing default", () => {
    fc.assert(fc.property(Arb.groups, fc.array(Arb.name), Arb.groups, (assigned, names, existing) => {
      for (const group of effectiveGroups(assigned, names, existing)) {
        assert.isTrue(assigned.includes(group) || (existing.includes(group) && names.includes(group.name)))
      }
    }))
  })
})

const zero = {
  reposPublic: 0,
  reposPrivate: 0,
  gitLfs: 0,
  attachmentsIssues: 0,
  attachmentsReleases: 0,
  artifacts: 0,
  packages: 0
}
