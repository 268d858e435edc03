/**
 * Whether an owner is over quota. Pure: it only reports, nothing here blocks a write.
 *
 * A rule stands when it is unlimited or the summed usage of its subjects is strictly below its limit.
 * A rule applies to a question about subject S when one of its subjects measures data S measures
 * (S itself, a subject containing S, or a part of S). A group stands for S when every rule of it that
 * applies to S stands. An owner with at least one group is over quota for S when no group stands for S;
 * an owner with no group is never over quota, and `size:wiki` is never over quota.
 */
import type { QuotaGroup } from "./QuotaGroup.ts"
import type { QuotaRule } from "./QuotaRule.ts"
import { unlimited } from "./QuotaRule.ts"
import type { Subject } from "./Subject.ts"
import { isWikiSubject, overlaps } from "./Subject.ts"
import type { Usage } from "./Usage.ts"
import { usageOf } from "./Usage.ts"

/** The usage a rule limits: the sum over its subjects, each counted once per mention. */
export const ruleUsage = (rule: QuotaRule, usage: Usage): number =>
  rule.subjects.reduce((sum, subject) => sum + usageOf(usage, subject), 0)

export const ruleStands = (rule: QuotaRule, usage: Usage): boolean =>
  rule.limit === unlimited || ruleUsage(rule, usage) < rule.limit

export const ruleApplies = (rule: QuotaRule, subject: Subject): boolean =>
  rule.subjects.some((ruleSubject) => overlaps(ruleSubject, subject))

/** A group with no rule that applies to the subject sets no limit on it, and stands. */
export const groupStands = (group: QuotaGroup, usage: Usage, subject: Subject): boolean =>
  group.rules.every((rule) => !ruleApplies(rule, subject) || ruleStands(rule, usage))

/**
 * The groups that limit an owner: its assigned groups; when none are assigned, the existing groups
 * named in the configured default list (in the list's order, unknown names ignored, repeats once);
 * otherwise none.
 */
export const effectiveGroups = (
  assigned: ReadonlyArray<QuotaGroup>,
  defaultGroupNames: ReadonlyArray<string>,
  existing: ReadonlyArray<QuotaGroup>
): ReadonlyArray<QuotaGroup> => {
  if (assigned.length > 0) return assigned
  return [...new Set(defaultGroupNames)].flatMap((name) => existing.filter((group) => group.name === name))
}

/** `true` when the owner is over quota for the subject, given its effective groups. */
export const isOverQuota = (groups: ReadonlyArray<QuotaGroup>, usage: Usage, subject: Subject): boolean =>
  !isWikiSubject(subject) && groups.length > 0 && !groups.some((group) => groupStands(group, usage, subject))
