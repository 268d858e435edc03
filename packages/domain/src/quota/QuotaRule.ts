/**
 * A quota rule: a limit on the summed usage of a list of subjects.
 */
import { Effect, Schema } from "effect"
import { Invalid } from "../errors.ts"
import type { Subject } from "./Subject.ts"
import { parseSubjects, Subject as SubjectSchema } from "./Subject.ts"

/** The limit that never limits. */
export const unlimited = -1

// 2^63 is a float64 integer just outside int64; every integer below it that a number holds fits an int8 column.
const int64Bound = 2 ** 63

/**
 * A limit in bytes: an integer in the int64 range (as far as a JS number holds it exactly), or -1 for
 * {@link unlimited}. Any other negative limit never stands, because usage is never below it.
 * Go's MaxInt64 (9223372036854775807) parses to 2^63 in JavaScript and is therefore rejected.
 */
export const QuotaLimit = Schema.Number.check(
  Schema.makeFilter((n: number) => Number.isInteger(n) && n >= -int64Bound && n < int64Bound, {
    expected: "a 64-bit integer"
  })
)

export const QuotaRule = Schema.Struct({
  name: Schema.NonEmptyString,
  limit: QuotaLimit,
  /** In the order given; repeats are kept and counted once per mention (the rule sums its subjects). */
  subjects: Schema.Array(SubjectSchema)
})
export type QuotaRule = typeof QuotaRule.Type

/** A rule as an administrator writes it (create-rule body, or one entry of a create-group body). */
export interface QuotaRuleDefinition {
  readonly name: string
  /** Omitted means 0. */
  readonly limit?: number | undefined
  /** Omitted means none. */
  readonly subjects?: ReadonlyArray<string> | undefined
}

/** The fields an edit changes; an absent field stays as it is. */
export interface QuotaRuleEdit {
  readonly limit?: number | undefined
  readonly subjects?: ReadonlyArray<Subject> | undefined
}

/** The same edit before its subject strings are read. */
export interface QuotaRuleEditDefinition {
  readonly limit?: number | undefined
  readonly subjects?: ReadonlyArray<string> | undefined
}

const checkLimit = (limit: number): Effect.Effect<number, Invalid> =>
  Schema.is(QuotaLimit)(limit)
    ? Effect.succeed(limit)
    : Effect.fail(new Invalid({ message: `[Limit]: must be a 64-bit integer, got ${limit}`, field: "limit" }))

/** Forgejo keeps quota rule and group names in `varchar(255)` columns. */
export const QUOTA_NAME_MAX_LENGTH = 255

/** A rule or group name: 422 `[Name]: Required` when empty, `[Name]: MaxSize` past 255 characters. */
export const checkQuotaName = (name: string): Effect.Effect<void, Invalid> =>
  name === "" ? Effect.fail(new Invalid({ message: "[Name]: Required", field: "name" }))
    : [...name].length > QUOTA_NAME_MAX_LENGTH ? Effect.fail(new Invalid({ message: "[Name]: MaxSize", field: "name" }))
    : Effect.void

/**
 * Validates a rule definition: the name must not be empty, an omitted limit is 0, and every subject
 * must be one of the subjects (Invalid `unrecognized quota limit subject: [subject: s]` otherwise).
 */
export const makeRule = (definition: QuotaRuleDefinition): Effect.Effect<QuotaRule, Invalid> =>
  Effect.gen(function*() {
    yield* checkQuotaName(definition.name)
    const limit = yield* checkLimit(definition.limit ?? 0)
    const subjects = yield* parseSubjects(definition.subjects ?? [])
    return { name: definition.name, limit, subjects }
  })

/** Validates an edit the same way as {@link makeRule}; absent fields stay absent. */
export const makeRuleEdit = (definition: QuotaRuleEditDefinition): Effect.Effect<QuotaRuleEdit, Invalid> =>
  Effect.gen(function*() {
    const limit = definition.limit === undefined ? undefined : yield* checkLimit(definition.limit)
    const subjects = definition.subjects === undefined ? undefined : yield* parseSubjects(definition.subjects)
    return { limit, subjects }
  })

/** The rule after an edit: fields the edit leaves out keep their value. */
export const applyRuleEdit = (rule: QuotaRule, edit: QuotaRuleEdit): QuotaRule => ({
  name: rule.name,
  limit: edit.limit ?? rule.limit,
  subjects: edit.subjects ?? rule.subjects
})
