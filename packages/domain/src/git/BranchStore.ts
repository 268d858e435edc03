/** The port of the branch table: one row per branch of each repository. */
import { Context, type Effect, type Option } from "effect"
import type { Page, PageRequest } from "../Paging.ts"
import type { Branch } from "./Branch.ts"

export class BranchStore extends Context.Service<BranchStore, {
  /** In Forgejo's order (see `compareBranches`); `total` counts every branch of the repository. */
  readonly list: (repositoryId: number, page: PageRequest) => Effect.Effect<Page<Branch>>
  readonly find: (repositoryId: number, name: string) => Effect.Effect<Option.Option<Branch>>
  /** Whether the repository has any branch recorded. */
  readonly hasAny: (repositoryId: number) => Effect.Effect<boolean>
  /**
   * Records the branches of `put`, each replacing what was recorded under its name, and forgets
   * those named in `remove` (nothing happens for one not recorded); with `clearPending`, also clears
   * the table's pending mark, as the method of that name does. All at once: a push's follow-up, whose
   * section would otherwise clear its mark in a round trip of its own.
   */
  readonly record: (
    repositoryId: number,
    changes: { readonly put: ReadonlyArray<Branch>; readonly remove: ReadonlyArray<string> },
    clearPending: boolean
  ) => Effect.Effect<void>
  /** Makes the recorded branches exactly `branches`, all at once. */
  readonly replaceAll: (repositoryId: number, branches: ReadonlyArray<Branch>) => Effect.Effect<void>
  /** Whether any branch is recorded, and whether the table is marked as possibly behind git: one read. */
  readonly syncState: (repositoryId: number) => Effect.Effect<{ readonly hasAny: boolean; readonly pending: boolean }>
  /**
   * Marks the table as possibly behind git, outside a transaction so the mark holds before the git
   * step. `leftBehind`: a mark was there already (left by a section that did not finish); `hasAny`:
   * whether any branch was recorded then (one statement).
   */
  readonly markPending: (repositoryId: number) => Effect.Effect<{ readonly leftBehind: boolean; readonly hasAny: boolean }>
  readonly clearPending: (repositoryId: number) => Effect.Effect<void>
  /** The repositories marked, oldest mark first. */
  readonly pending: () => Effect.Effect<ReadonlyArray<number>>
}>()("@kiln/domain/git/BranchStore") {}
