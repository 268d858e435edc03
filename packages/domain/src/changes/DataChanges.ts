/**
 * "Something committed may have changed": what lets a process keep answers derived from the
 * database (entity tags of API answers, git access decisions) and know, without a query, whether
 * they may be stale.
 *
 * The version is a number that moves whenever a change commits, in this process or in any other on
 * the same database; while changes made elsewhere cannot be seen (a lost listener), it is
 * undefined and nothing derived may be trusted.
 */
import { Context } from "effect"

export class DataChanges extends Context.Service<DataChanges, {
  /** The current version; undefined while changes made elsewhere cannot be seen. */
  readonly version: () => number | undefined
  /**
   * A version that moves on every change but a repository's contents (its branches, size,
   * emptiness, default branch and update time: what a push writes), none of which decides who may
   * read or push it; undefined when `version` is.
   */
  readonly accessVersion: () => number | undefined
  /** Records a change this process committed (its answer is about to go out); both versions move. */
  readonly changed: () => void
}>()("@kiln/domain/changes/DataChanges") {}
