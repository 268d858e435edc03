/** The port through which repositories, their collaborators and the facts behind access are stored. */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists } from "../errors.ts"
import type { AccessMode } from "../org/AccessMode.ts"
import type { Team } from "../org/Team.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { User } from "../user/User.ts"
import type { NewRepository, OwnedRepository, Repository, RepositoryChanges } from "./Repository.ts"
import type { RepositorySearch } from "./RepositorySearch.ts"

/** What decides a signed-in user's access to a set of repositories (see `repositoryAccess`). */
export interface AccessFacts {
  /** Repository id → the user's collaboration level. */
  readonly collaborations: ReadonlyMap<number, AccessMode>
  /** Repository id → the user's teams covering it (organization repositories only). */
  readonly teams: ReadonlyMap<number, ReadonlyArray<Team>>
  /** Organizations (among the owners asked about) the user is a member of. */
  readonly memberOf: ReadonlySet<number>
}

export class RepositoryStore extends Context.Service<RepositoryStore, {
  /**
   * AlreadyExists when the owner has a repository of that name (case-insensitive). A fork's base
   * counts it (`numForks`) in the same transaction.
   */
  readonly insert: (repository: NewRepository) => Effect.Effect<Repository, AlreadyExists>
  /**
   * By owner name and repository name, both case-insensitive. May hand out the same object again
   * while the repository and its owner are unchanged: a caller may keep work done on it by identity.
   */
  readonly find: (ownerName: string, name: string) => Effect.Effect<Option.Option<OwnedRepository>>
  readonly findById: (id: number) => Effect.Effect<Option.Option<OwnedRepository>>
  /** Those of `ids` that exist, in no particular order (one round trip for a page's fork bases). */
  readonly findByIds: (ids: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<OwnedRepository>>
  /** AlreadyExists when renamed onto another repository of the owner. */
  readonly update: (id: number, changes: RepositoryChanges) => Effect.Effect<Repository, AlreadyExists>
  /**
   * A push's size, emptiness and update time, written only while the row is still the one named
   * `names` (its owner's name and its own, as the push found it) and its default branch stays: it is
   * not empty, the push left it without branches, or one of `branches` is its default branch. None
   * otherwise (read the row, then `update`): one statement for every push but a repository's first.
   */
  readonly updateAfterPush: (
    id: number,
    names: { readonly owner: string; readonly name: string },
    branches: ReadonlyArray<string>,
    changes: Pick<RepositoryChanges, "size" | "isEmpty" | "updatedAt">
  ) => Effect.Effect<Option.Option<Repository>>
  /**
   * Removes the row with its collaborations and team listings; a fork's base counts one fork less,
   * and the repository's own forks become plain repositories (Forgejo's DeleteRepository).
   */
  readonly remove: (id: number) => Effect.Effect<void>
  readonly search: (query: RepositorySearch) => Effect.Effect<Page<OwnedRepository>>
  readonly countForOwner: (ownerId: number) => Effect.Effect<number>
  /** The forks of a repository, by id. */
  readonly listForks: (baseId: number) => Effect.Effect<ReadonlyArray<OwnedRepository>>
  /** The owner's fork of a repository, if it has one. */
  readonly findFork: (ownerId: number, baseId: number) => Effect.Effect<Option.Option<OwnedRepository>>
  readonly accessFacts: (userId: number, repositories: ReadonlyArray<Repository>) => Effect.Effect<AccessFacts>
  readonly collaboration: (repositoryId: number, userId: number) => Effect.Effect<Option.Option<AccessMode>>
  /** Adds the collaborator at `mode`, or leaves an existing collaboration as it is. */
  readonly addCollaborator: (repositoryId: number, userId: number, mode: AccessMode) => Effect.Effect<void>
  readonly setCollaboration: (repositoryId: number, userId: number, mode: AccessMode) => Effect.Effect<void>
  readonly removeCollaborator: (repositoryId: number, userId: number) => Effect.Effect<void>
  /** By collaborator name; `total` for X-Total-Count. */
  readonly listCollaborators: (repositoryId: number, page: PageRequest) => Effect.Effect<Page<User>>
}>()("@kiln/domain/repo/RepositoryStore") {}
