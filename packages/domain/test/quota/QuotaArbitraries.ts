// fast-check generators for the quota model. Sizes and limits share one small range so that rules
// both stand and fall often; unlimited and negative limits are mixed in.
import fc from "fast-check"
import type { QuotaGroup } from "../../src/quota/QuotaGroup.ts"
import type { QuotaRule } from "../../src/quota/QuotaRule.ts"
import { unlimited } from "../../src/quota/QuotaRule.ts"
import type { Subject } from "../../src/quota/Subject.ts"
import { isSubject, subjects } from "../../src/quota/Subject.ts"
import type { Usage } from "../../src/quota/Usage.ts"

export const subject: fc.Arbitrary<Subject> = fc.constantFrom(...subjects)

const size = fc.integer({ min: 0, max: 1_000 })

export const usage: fc.Arbitrary<Usage> = fc.record({
  reposPublic: size,
  reposPrivate: size,
  gitLfs: size,
  attachmentsIssues: size,
  attachmentsReleases: size,
  artifacts: size,
  packages: size
})

/** Usage and a second usage that is at least as big in every leaf. */
export const usageAndMore: fc.Arbitrary<readonly [Usage, Usage]> = fc.tuple(usage, usage).map(([base, extra]) => [
  base,
  {
    reposPublic: base.reposPublic + extra.reposPublic,
    reposPrivate: base.reposPrivate + extra.reposPrivate,
    gitLfs: base.gitLfs + extra.gitLfs,
    attachmentsIssues: base.attachmentsIssues + extra.attachmentsIssues,
    attachmentsReleases: base.attachmentsReleases + extra.attachmentsReleases,
    artifacts: base.artifacts + extra.artifacts,
    packages: base.packages + extra.packages
  }
])

export const limit: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 8_000 }) },
  { weight: 2, arbitrary: fc.constant(unlimited) },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: -2 }) }
)

export const name: fc.Arbitrary<string> = fc.string({ minLength: 1, maxLength: 8 })

export const rule: fc.Arbitrary<QuotaRule> = fc.record({
  name,
  limit,
  subjects: fc.array(subject, { maxLength: 3 })
})

export const unlimitedRule: fc.Arbitrary<QuotaRule> = fc.record({
  name,
  limit: fc.constant(unlimited),
  subjects: fc.array(subject, { maxLength: 3 })
})

export const group: fc.Arbitrary<QuotaGroup> = fc.record({ name, rules: fc.array(rule, { maxLength: 4 }) })

export const groups: fc.Arbitrary<ReadonlyArray<QuotaGroup>> = fc.array(group, { maxLength: 4 })

export const nonEmptyGroups: fc.Arbitrary<ReadonlyArray<QuotaGroup>> = fc.array(group, { minLength: 1, maxLength: 4 })

/** Any string that is not a subject, with near misses (Forgejo's `none`, case, spaces). */
export const unknownSubject: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("size:assets:wikis", "none", "", "SIZE:ALL", " size:all", "size:all ", "size:repos", "valid:false"),
  fc.string(),
  subject.map((s) => `${s}:x`)
).filter((s) => !isSubject(s))
