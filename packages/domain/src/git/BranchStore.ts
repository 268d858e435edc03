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
  /** Records the branch, replacing what was recorded under its name. */
  readonly put: (repositoryId: number, branch: Branch) => Effect.Effect<void>
  /** Forgets the branch; nothing happens when it was not recorded. */
  readonly remove: (repositoryId: number, name: string) => Effect.Effect<void>
  /** Makes the recorded branches exactly `branches`, all at once. */
  readonly replaceAll: (repositoryId: number, branches: ReadonlyArray<Branch>) => Effect.Effect<void>
}>()("@kiln/domain/git/BranchStore") {}
