/**
 * A quota group: a named set of rules. Owners (users and organizations alike) are assigned to groups.
 */
import { Effect, Schema } from "effect"
import { Invalid } from "../errors.ts"
import type { QuotaRuleDefinition } from "./QuotaRule.ts"
import { checkQuotaName, makeRule, QuotaRule } from "./QuotaRule.ts"

export const QuotaGroup = Schema.Struct({
  name: Schema.NonEmptyString,
  rules: Schema.Array(QuotaRule)
})
export type QuotaGroup = typeof QuotaGroup.Type

/** A group as an administrator writes it in the create-group body. */
export interface QuotaGroupDefinition {
  readonly name: string
  /** Omitted means none. */
  readonly rules?: ReadonlyArray<QuotaRuleDefinition> | undefined
}

/**
 * Validates a create-group body: the name must not be empty and every rule definition must be valid,
 * including the definitions of rules that already exist (whose limit and subjects the store then ignores).
 */
export const makeGroup = (definition: QuotaGroupDefinition): Effect.Effect<QuotaGroup, Invalid> =>
  Effect.gen(function*() {
    yield* checkQuotaName(definition.name)
    const rules = yield* Effect.forEach(definition.rules ?? [], makeRule)
    return { name: definition.name, rules }
  })
