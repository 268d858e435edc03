import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { subjects } from "../../src/quota/Subject.ts"
import { emptyUsage, usageLeaves, usageOf } from "../../src/quota/Usage.ts"
import type { Usage } from "../../src/quota/Usage.ts"
import * as Arb from "./QuotaArbitraries.ts"

const at = (u: Usage) => (s: (typeof subjects)[number]) => usageOf(u, s)

describe("Usage", () => {
  it("the aggregates of the decided model", () => {
    fc.assert(fc.property(Arb.usage, (u) => {
      const of = at(u)
      assert.strictEqual(of("size:repos:public"), u.reposPublic)
      assert.strictEqual(of("size:repos:private"), u.reposPrivate)
      assert.strictEqual(of("size:git:lfs"), u.gitLfs)
      assert.strictEqual(of("size:assets:attachments:issues"), u.attachmentsIssues)
      assert.strictEqual(of("size:assets:attachments:releases"), u.attachmentsReleases)
      assert.strictEqual(of("size:assets:artifacts"), u.artifacts)
      assert.strictEqual(of("size:assets:packages:all"), u.packages)
      assert.strictEqual(of("size:repos:all"), u.reposPublic + u.reposPrivate)
      assert.strictEqual(of("size:git:all"), of("size:repos:all") + u.gitLfs)
      assert.strictEqual(
        of("size:assets:attachments:all"),
        of("size:assets:attachments:issues") + of("size:assets:attachments:releases")
      )
      assert.strictEqual(
        of("size:assets:all"),
        of("size:assets:attachments:all") + of("size:assets:artifacts") + of("size:assets:packages:all")
      )
      assert.strictEqual(of("size:all"), of("size:repos:all") + of("size:git:lfs") + of("size:assets:all"))
      assert.strictEqual(of("size:wiki"), 0)
    }))
  })

  it("size:all counts every byte once: it is the sum of all leaves", () => {
    fc.assert(fc.property(Arb.usage, (u) => {
      assert.strictEqual(usageOf(u, "size:all"), usageLeaves.reduce((sum, leaf) => sum + u[leaf], 0))
      assert.strictEqual(usageOf(u, "size:all"), usageOf(u, "size:git:all") + usageOf(u, "size:assets:all"))
    }))
  })

  it("every aggregate is additive over usage and grows with it", () => {
    fc.assert(fc.property(Arb.usageAndMore, Arb.subject, ([small, big], s) => {
      assert.isAtMost(usageOf(small, s), usageOf(big, s))
    }))
    fc.assert(fc.property(Arb.usage, Arb.usage, Arb.subject, (a, b, s) => {
      const both: Usage = {
        reposPublic: a.reposPublic + b.reposPublic,
        reposPrivate: a.reposPrivate + b.reposPrivate,
        gitLfs: a.gitLfs + b.gitLfs,
        attachmentsIssues: a.attachmentsIssues + b.attachmentsIssues,
        attachmentsReleases: a.attachmentsReleases + b.attachmentsReleases,
        artifacts: a.artifacts + b.artifacts,
        packages: a.packages + b.packages
      }
      assert.strictEqual(usageOf(both, s), usageOf(a, s) + usageOf(b, s))
    }))
  })

  it("an owner that stores nothing uses 0 of every subject", () => {
    for (const s of subjects) assert.strictEqual(usageOf(emptyUsage, s), 0)
  })
})
