/**
 * The quota operations that need more than one store call: reading subject strings, the over-quota check
 * and the usage report. Operations that are a single store call (delete, add/remove in group, set a user's
 * groups, the asset lists) go to `QuotaStore` directly.
 */
import { Context, Effect, Layer } from "effect"
import type { AlreadyExists, Invalid, NotFound } from "../errors.ts"
import { QuotaConfig } from "./QuotaConfig.ts"
import { groupAlreadyExists } from "./QuotaErrors.ts"
import { effectiveGroups, isOverQuota } from "./QuotaEvaluation.ts"
import type { QuotaGroup, QuotaGroupDefinition } from "./QuotaGroup.ts"
import { makeGroup } from "./QuotaGroup.ts"
import type { QuotaRule, QuotaRuleDefinition, QuotaRuleEditDefinition } from "./QuotaRule.ts"
import { makeRule, makeRuleEdit } from "./QuotaRule.ts"
import { isWikiSubject, parseSubject } from "./Subject.ts"
import { QuotaStore } from "./QuotaStore.ts"
import type { Usage } from "./Usage.ts"

/** What the usage endpoints report: the owner's usage and the groups that limit it. */
export interface QuotaInfo {
  readonly usage: Usage
  /** The effective groups: assigned ones, else the existing default groups, else none. */
  readonly groups: ReadonlyArray<QuotaGroup>
}

export class QuotaService extends Context.Service<QuotaService, {
  /**
   * `true` when the owner is OVER quota for the subject (the spec's reading; Forgejo answers the opposite).
   * Fails with Invalid `unrecognized quota limit subject: [subject: s]` for an unknown subject string.
   */
  check(ownerId: number, subject: string): Effect.Effect<boolean, Invalid>

  info(ownerId: number): Effect.Effect<QuotaInfo>

  /** Validates the definition (omitted limit 0, known subjects) and stores the rule. */
  createRule(definition: QuotaRuleDefinition): Effect.Effect<QuotaRule, Invalid | AlreadyExists>

  /** An unknown rule is NotFound before the edit is validated (the rule is a path parameter). */
  editRule(name: string, edit: QuotaRuleEditDefinition): Effect.Effect<QuotaRule, Invalid | NotFound>

  /**
   * A taken group name is AlreadyExists before the body is validated (as in Forgejo, where the group is
   * created before its rules are read); then every rule definition must be valid, and the store creates
   * the group and the rules it does not know yet, all or nothing.
   */
  createGroup(definition: QuotaGroupDefinition): Effect.Effect<QuotaGroup, Invalid | AlreadyExists>
}>()("@kiln/domain/quota/QuotaService") {
  static readonly layer: Layer.Layer<QuotaService, never, QuotaStore | QuotaConfig> = Layer.effect(
    QuotaService,
    Effect.gen(function*() {
      const store = yield* QuotaStore
      const config = yield* QuotaConfig

      const groupsOf = (ownerId: number): Effect.Effect<ReadonlyArray<QuotaGroup>> =>
        Effect.gen(function*() {
          const assigned = yield* store.groupsOf(ownerId)
          if (assigned.length > 0 || config.defaultGroups.length === 0) return assigned
          return effectiveGroups(assigned, config.defaultGroups, yield* store.listGroups)
        })

      return QuotaService.of({
        check: (ownerId, input) =>
          Effect.gen(function*() {
            const subject = yield* parseSubject(input)
            const groups = yield* groupsOf(ownerId)
            // Without groups, or for the wiki, the answer does not depend on usage.
            if (groups.length === 0 || isWikiSubject(subject)) return false
            return isOverQuota(groups, yield* store.usageOf(ownerId), subject)
          }),

        info: (ownerId) =>
          Effect.all({ usage: store.usageOf(ownerId), groups: groupsOf(ownerId) }),

        createRule: (definition) => Effect.flatMap(makeRule(definition), store.createRule),

        editRule: (name, edit) =>
          store.getRule(name).pipe(
            Effect.andThen(makeRuleEdit(edit)),
            Effect.flatMap((valid) => store.editRule(name, valid))
          ),

        createGroup: (definition) =>
          Effect.gen(function*() {
            const taken = yield* store.getGroup(definition.name).pipe(
              Effect.as(true),
              Effect.catchTag("NotFound", () => Effect.succeed(false))
            )
            if (taken) return yield* groupAlreadyExists(definition.name)
            return yield* store.createGroup(yield* makeGroup(definition))
          })
      })
    })
  )
}
