// A QuotaStore in memory: the executable reading of the port's contract, used to test QuotaService and
// to check the contract suite itself. Usage and asset lists are seeded, since the port only reads them.
import { Effect, Layer } from "effect"
import type { Page, PageRequest } from "../../src/Paging.ts"
import { offsetOf } from "../../src/Paging.ts"
import {
  groupAlreadyExists,
  groupNotFound,
  groupNotFoundInList,
  ruleAlreadyExists,
  ruleAlreadyInGroup,
  ruleNotFound,
  ruleNotInGroup,
  userAlreadyInGroup,
  userNotInGroup
} from "../../src/quota/QuotaErrors.ts"
import type { QuotaGroup } from "../../src/quota/QuotaGroup.ts"
import type { QuotaRule } from "../../src/quota/QuotaRule.ts"
import { applyRuleEdit } from "../../src/quota/QuotaRule.ts"
import { QuotaStore } from "../../src/quota/QuotaStore.ts"
import type { QuotaArtifact, QuotaAttachment, QuotaPackage } from "../../src/quota/UsedAssets.ts"
import type { Usage } from "../../src/quota/Usage.ts"
import { emptyUsage } from "../../src/quota/Usage.ts"

export interface OwnerData {
  readonly usage?: Usage
  readonly attachments?: ReadonlyArray<QuotaAttachment>
  readonly packages?: ReadonlyArray<QuotaPackage>
  readonly artifacts?: ReadonlyArray<QuotaArtifact>
}

const byName = (a: { readonly name: string }, b: { readonly name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0

const biggestFirst = (a: { readonly size: number; readonly id: number }, b: { readonly size: number; readonly id: number }) =>
  b.size - a.size || a.id - b.id

const paged = <A extends { readonly size: number; readonly id: number }>(
  items: ReadonlyArray<A>,
  page: PageRequest
): Page<A> => {
  const offset = offsetOf(page)
  return { items: [...items].sort(biggestFirst).slice(offset, offset + page.limit), total: items.length }
}

export const makeInMemoryQuotaStore = (owners: ReadonlyMap<number, OwnerData> = new Map()) => {
  const rules = new Map<string, QuotaRule>()
  const groupRules = new Map<string, Set<string>>()
  const groupUsers = new Map<string, Set<number>>()

  const groupOf = (name: string): QuotaGroup => ({
    name,
    rules: [...(groupRules.get(name) ?? [])].flatMap((r) => {
      const rule = rules.get(r)
      return rule === undefined ? [] : [rule]
    }).sort(byName)
  })
  const groupNames = () => [...groupRules.keys()].sort()
  const existingGroup = (name: string) =>
    groupRules.has(name) ? Effect.succeed(name) : Effect.fail(groupNotFound(name))
  const existingRule = (name: string) => {
    const rule = rules.get(name)
    return rule === undefined ? Effect.fail(ruleNotFound(name)) : Effect.succeed(rule)
  }

  return QuotaStore.of({
    listRules: Effect.sync(() => [...rules.values()].sort(byName)),
    getRule: existingRule,
    createRule: (rule) =>
      Effect.suspend(() => {
        if (rules.has(rule.name)) return Effect.fail(ruleAlreadyExists(rule.name))
        rules.set(rule.name, rule)
        return Effect.succeed(rule)
      }),
    editRule: (name, edit) =>
      Effect.map(existingRule(name), (rule) => {
        const edited = applyRuleEdit(rule, edit)
        rules.set(name, edited)
        return edited
      }),
    deleteRule: (name) =>
      Effect.map(existingRule(name), () => {
        rules.delete(name)
        for (const set of groupRules.values()) set.delete(name)
      }),

    listGroups: Effect.sync(() => groupNames().map(groupOf)),
    getGroup: (name) => Effect.map(existingGroup(name), groupOf),
    createGroup: (group) =>
      Effect.suspend(() => {
        if (groupRules.has(group.name)) return Effect.fail(groupAlreadyExists(group.name))
        const seen = new Set<string>()
        for (const rule of group.rules) {
          if (seen.has(rule.name)) return Effect.fail(ruleAlreadyInGroup(group.name, rule.name))
          seen.add(rule.name)
        }
        // Validated above, so the writes below cannot fail halfway.
        for (const rule of group.rules) if (!rules.has(rule.name)) rules.set(rule.name, rule)
        groupRules.set(group.name, seen)
        groupUsers.set(group.name, new Set())
        return Effect.succeed(groupOf(group.name))
      }),
    deleteGroup: (name) =>
      Effect.map(existingGroup(name), () => {
        groupRules.delete(name)
        groupUsers.delete(name)
      }),
    addRuleToGroup: (group, rule) =>
      Effect.gen(function*() {
        yield* existingGroup(group)
        yield* existingRule(rule)
        const set = groupRules.get(group) ?? new Set()
        if (set.has(rule)) return yield* ruleAlreadyInGroup(group, rule)
        set.add(rule)
      }),
    removeRuleFromGroup: (group, rule) =>
      Effect.gen(function*() {
        yield* existingGroup(group)
        yield* existingRule(rule)
        const set = groupRules.get(group) ?? new Set()
        if (!set.delete(rule)) return yield* ruleNotInGroup(group, rule)
      }),

    listUsersInGroup: (group) =>
      Effect.map(existingGroup(group), () => [...(groupUsers.get(group) ?? [])].sort((a, b) => a - b)),
    addUserToGroup: (group, userId) =>
      Effect.gen(function*() {
        yield* existingGroup(group)
        const set = groupUsers.get(group) ?? new Set()
        if (set.has(userId)) return yield* userAlreadyInGroup(group, userId)
        set.add(userId)
      }),
    removeUserFromGroup: (group, userId) =>
      Effect.gen(function*() {
        yield* existingGroup(group)
        if (!groupUsers.get(group)?.delete(userId)) return yield* userNotInGroup(group, userId)
      }),
    setUserGroups: (userId, names) =>
      Effect.suspend(() => {
        const unknown = names.find((name) => !groupUsers.has(name))
        if (unknown !== undefined) return Effect.fail(groupNotFoundInList(unknown))
        for (const [name, users] of groupUsers) {
          if (names.includes(name)) users.add(userId)
          else users.delete(userId)
        }
        return Effect.void
      }),
    groupsOf: (ownerId) =>
      Effect.sync(() => groupNames().filter((name) => groupUsers.get(name)?.has(ownerId)).map(groupOf)),

    usageOf: (ownerId) => Effect.sync(() => owners.get(ownerId)?.usage ?? emptyUsage),
    listAttachments: (ownerId, page) => Effect.sync(() => paged(owners.get(ownerId)?.attachments ?? [], page)),
    listPackages: (ownerId, page) => Effect.sync(() => paged(owners.get(ownerId)?.packages ?? [], page)),
    listArtifacts: (ownerId, page) => Effect.sync(() => paged(owners.get(ownerId)?.artifacts ?? [], page))
  })
}

export const inMemoryQuotaStoreLayer = (owners?: ReadonlyMap<number, OwnerData>) =>
  Layer.sync(QuotaStore, () => makeInMemoryQuotaStore(owners))
