/**
 * The port through which quota settings and usage are stored and read.
 *
 * Conventions every implementation keeps:
 * - Names of rules and groups are compared exactly (case-sensitive, no trimming).
 * - "By name" order is code-unit order, as JavaScript's `<` on strings (Postgres `COLLATE "C"`).
 * - A group always carries its rules, ordered by name.
 * - Every write is one transaction: when it fails, nothing of it is kept.
 * - Failures are only the domain errors listed per operation, with the texts of `QuotaErrors.ts`;
 *   anything else (a broken database) is a defect.
 * - Owners are users and organizations alike, named by their user id. The caller resolves names to ids
 *   and answers 404 for unknown users itself; the store does not check that an id exists.
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { AlreadyExists, Invalid, NotFound } from "../errors.ts"
import type { QuotaGroup } from "./QuotaGroup.ts"
import type { QuotaRule, QuotaRuleEdit } from "./QuotaRule.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { QuotaArtifact, QuotaAttachment, QuotaPackage } from "./UsedAssets.ts"
import type { Usage } from "./Usage.ts"

export class QuotaStore extends Context.Service<QuotaStore, {
  // --- rules ---

  /** All rules, by name. */
  readonly listRules: Effect.Effect<ReadonlyArray<QuotaRule>>

  /** Fails with `ruleNotFound(name)`. */
  getRule(name: string): Effect.Effect<QuotaRule, NotFound>

  /** Stores a new rule and returns it. Fails with `ruleAlreadyExists(rule.name)` when the name is taken. */
  createRule(rule: QuotaRule): Effect.Effect<QuotaRule, AlreadyExists>

  /**
   * Changes the fields the edit carries (an absent field keeps its value, an empty edit changes nothing)
   * and returns the rule as stored afterwards. Fails with `ruleNotFound(name)`.
   */
  editRule(name: string, edit: QuotaRuleEdit): Effect.Effect<QuotaRule, NotFound>

  /** Deletes the rule and removes it from every group. Fails with `ruleNotFound(name)`. */
  deleteRule(name: string): Effect.Effect<void, NotFound>

  // --- groups ---

  /** All groups, by name, each with its rules. */
  readonly listGroups: Effect.Effect<ReadonlyArray<QuotaGroup>>

  /** Fails with `groupNotFound(name)`. */
  getGroup(name: string): Effect.Effect<QuotaGroup, NotFound>

  /**
   * Creates the group with its rules, all or nothing. For each rule in `group.rules`, in order: when no rule
   * of that name exists it is created as given; when one exists it is reused unchanged (the given limit and
   * subjects are ignored). Each rule is then added to the group. Returns the group as stored (its rules as
   * stored, by name).
   * Fails with `groupAlreadyExists(group.name)` when the name is taken, and with
   * `ruleAlreadyInGroup(group.name, rule)` when the list names a rule twice.
   */
  createGroup(group: QuotaGroup): Effect.Effect<QuotaGroup, AlreadyExists>

  /**
   * Deletes the group and its user and rule assignments; the rules themselves stay.
   * Fails with `groupNotFound(name)`.
   */
  deleteGroup(name: string): Effect.Effect<void, NotFound>

  /** Adds an existing rule to a group. Fails with `groupNotFound`, then `ruleNotFound`, then `ruleAlreadyInGroup`. */
  addRuleToGroup(group: string, rule: string): Effect.Effect<void, NotFound | AlreadyExists>

  /** Fails with `groupNotFound`, then `ruleNotFound`, then `ruleNotInGroup` when the rule is not in the group. */
  removeRuleFromGroup(group: string, rule: string): Effect.Effect<void, NotFound>

  // --- owners in groups ---

  /** The ids of the owners assigned to the group, ascending. Fails with `groupNotFound(group)`. */
  listUsersInGroup(group: string): Effect.Effect<ReadonlyArray<number>, NotFound>

  /** Fails with `groupNotFound(group)`, then `userAlreadyInGroup(group, userId)`. */
  addUserToGroup(group: string, userId: number): Effect.Effect<void, NotFound | AlreadyExists>

  /** Fails with `groupNotFound(group)`, then `userNotInGroup(group, userId)`. */
  removeUserFromGroup(group: string, userId: number): Effect.Effect<void, NotFound>

  /**
   * Replaces the owner's assigned groups with the named ones, all or nothing. A name given twice counts once;
   * an empty list removes every assignment (the owner falls back to the default groups).
   * Fails with `groupNotFoundInList(name)` (an Invalid) for the first name, in list order, that names no
   * group; the assignment is then unchanged.
   */
  setUserGroups(userId: number, groups: ReadonlyArray<string>): Effect.Effect<void, Invalid>

  /** The groups explicitly assigned to the owner, by name, each with its rules; empty when none. */
  groupsOf(ownerId: number): Effect.Effect<ReadonlyArray<QuotaGroup>>

  // --- usage ---
  // The three lists skip `offsetOf(page)` items and return at most `page.limit`; a page past the end is
  // empty with the true total. The page request is already normalised (`pageRequest` in Paging.ts).

  /**
   * The owner's usage in bytes, leaf by leaf (see `Usage`); every item counts toward the owner of the
   * repository it belongs to, packages without a repository toward their own owner. All zeros for an owner
   * that stores nothing (or does not exist).
   */
  usageOf(ownerId: number): Effect.Effect<Usage>

  /**
   * The attachments counted in the owner's usage (issue, comment and release attachments of its
   * repositories): biggest first, ties by id ascending; `total` counts all pages.
   */
  listAttachments(ownerId: number, page: PageRequest): Effect.Effect<Page<QuotaAttachment>>

  /**
   * The package versions counted in the owner's usage, one item per version, `size` the sum of its files'
   * blobs: biggest first, ties by id ascending; `total` counts all pages.
   */
  listPackages(ownerId: number, page: PageRequest): Effect.Effect<Page<QuotaPackage>>

  /** The unexpired artifacts counted in the owner's usage: biggest first, ties by id ascending. */
  listArtifacts(ownerId: number, page: PageRequest): Effect.Effect<Page<QuotaArtifact>>
}>()("@kiln/domain/quota/QuotaStore") {}
