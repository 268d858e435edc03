/**
 * The whole set of repository rows as storage locations: what the disk is compared with when
 * looking for directories without a row (unadopted repositories) and rows without a directory.
 */
import { Context, type Effect } from "effect"
import type { RepositoryLocation } from "../git/GitStorage.ts"

export class RepositoryInventory extends Context.Service<RepositoryInventory, {
  /** Every repository row as `{ owner, name }`, both lower-cased (as storage names them). */
  readonly locations: Effect.Effect<ReadonlyArray<RepositoryLocation>>
  /** Those of `lowerNames` that name an account (user or organization), lower-cased. */
  readonly existingOwners: (lowerNames: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
}>()("@kiln/domain/repo/RepositoryInventory") {}
