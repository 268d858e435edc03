/**
 * Forks (api-facts §4.11; routers/api/v1/repo/fork.go, services/repository/fork.go): a new
 * repository of the caller or one of their organizations that starts as a copy of the base
 * repository's git data and records the base as its parent. Listing shows the forks the caller
 * may see. The row and the directory appear together, under the same rules as `create`.
 */
import { Effect, Option } from "effect"
import { AlreadyExists, Forbidden, Invalid, NotFound } from "../errors.ts"
import type { GitStorage, RepositoryLocation } from "../git/GitStorage.ts"
import type { GitStorageFailure } from "../git/GitStorageFailure.ts"
import { GitTransfers, type StagedRepository } from "../git/GitTransfers.ts"
import type { RepositoryDirectories } from "../git/RepositoryDirectories.ts"
import { isOwnerTeam } from "../org/Team.ts"
import type { TeamStore } from "../org/TeamStore.ts"
import type { User } from "../user/User.ts"
import type { UserStore } from "../user/UserStore.ts"
import type { DiskStepInTransaction } from "./DirectorySteps.ts"
import {
  defaultUnits,
  type NewRepository,
  newRepository,
  type OwnedRepository,
  type Repository,
  REPOSITORY_EXISTS_MESSAGE,
  type RepositoryChanges,
  repositoryFilesExistMessage
} from "./Repository.ts"
import { checkUsableRepositoryName, REPOSITORY_NAME_MAX_LENGTH } from "./RepositoryName.ts"
import type { RepositoryRedirectStore } from "./RepositoryRedirectStore.ts"
import type { RepositoryStore } from "./RepositoryStore.ts"

/** CreateForkOption. */
export interface ForkInput {
  readonly organization?: string | undefined
  readonly name?: string | undefined
}

export const notOrgMemberMessage = (org: string): string => `User is no Member of Organisation '${org}'`
export const mayNotCreateInOrgMessage = (org: string): string => `User is not allowed to create repos in Organisation '${org}'`

export const alreadyForkedMessage = (owner: string, base: OwnedRepository, fork: OwnedRepository): string =>
  `repository is already forked by user [uname: ${owner}, repo path: ${base.owner.name}/${base.repository.name}, fork path: ${fork.owner.name}/${fork.repository.name}]`

/** A fork starts with code and pull requests only (Forgejo's DefaultForkRepoUnits). */
export const forkUnits = { ...defaultUnits, enabled: defaultUnits.enabled.filter((unit) => unit === "repo.code" || unit === "repo.pulls") }

export interface AdoptionDeps {
  readonly store: RepositoryStore["Service"]
  readonly redirects: RepositoryRedirectStore["Service"]
  readonly git: GitStorage["Service"]
  readonly directories: RepositoryDirectories["Service"]
  readonly diskStepInTransaction: DiskStepInTransaction
  /** Undoes what an interrupted step left at a location (DirectorySteps.settle). */
  readonly settleDirectory: (location: RepositoryLocation) => Effect.Effect<void>
}

/**
 * Inserts `row` and moves `staged` into place in one transaction; the size, emptiness and default
 * branch come from what was placed. AlreadyExists when the name is taken (row or files).
 */
export const adoptStaged = (
  deps: AdoptionDeps,
  owner: User,
  row: NewRepository,
  staged: StagedRepository
): Effect.Effect<Repository, AlreadyExists | Invalid | GitStorageFailure> => {
  const location: RepositoryLocation = { owner: owner.name, name: row.name }
  const missing = (error: NotFound | Invalid) => Effect.die(error)
  const { branches, size } = staged
  return deps.diskStepInTransaction(location, staged.place(location), [{ _tag: "Remove", location }])((onDisk) =>
    Effect.gen(function*() {
      const inserted = yield* deps.store.insert(row).pipe(Effect.mapError(() => new AlreadyExists({ message: REPOSITORY_EXISTS_MESSAGE })))
      yield* deps.redirects.release(owner.id, row.name)
      yield* onDisk
      const changes: { -readonly [K in keyof RepositoryChanges]: RepositoryChanges[K] } = { size, isEmpty: branches.length === 0 }
      const first = branches[0]
      if (first !== undefined && !branches.includes(row.defaultBranch)) {
        yield* deps.git.setDefaultBranch(location, first).pipe(Effect.catchTag("NotFound", missing))
        changes.defaultBranch = first
      }
      return yield* deps.store.update(inserted.id, changes).pipe(Effect.orDie)
    }))
}

/**
 * AlreadyExists `repository files already exist [...]` (409) when a directory without a row holds
 * the name: checked before any transfer, so nothing is copied only to be thrown away. A directory
 * an interrupted step left is undone first, so a repeated request finds the name free.
 */
export const refuseLeftFiles = (deps: AdoptionDeps, location: RepositoryLocation): Effect.Effect<void, AlreadyExists | Invalid> =>
  deps.settleDirectory(location).pipe(
    Effect.andThen(deps.directories.exists(location)),
    Effect.flatMap((exists) =>
      exists ? Effect.fail(new AlreadyExists({ message: repositoryFilesExistMessage(location.owner, location.name) })) : Effect.void)
  )

export interface ForkDeps extends AdoptionDeps {
  readonly users: UserStore["Service"]
  readonly teams: TeamStore["Service"]
  readonly now: Effect.Effect<number>
}

export type ForkFailure = Invalid | Forbidden | AlreadyExists | NotFound | GitStorageFailure

export const makeForks = (deps: ForkDeps) => {
  const { store, users, teams } = deps

  /** The fork's owner: the caller, or an organization the caller belongs to (site admins: any). */
  const forkOwner = (doer: User, organization: string | undefined) =>
    Effect.gen(function*() {
      if (organization === undefined) return doer
      const found = yield* users.findByName(organization)
      if (Option.isNone(found) || found.value.kind !== "organization") {
        return yield* new Invalid({ message: `org does not exist [id: 0, name: ${organization}]` })
      }
      const org = found.value
      if (!doer.isAdmin && !(yield* teams.isOrgMember(org.id, doer.id))) {
        return yield* new Forbidden({ message: notOrgMemberMessage(org.name) })
      }
      // A fork is a new repository of the organization: only its owners and teams that may create repositories.
      if (!doer.isAdmin) {
        const memberships = yield* teams.listForMember(org.id, doer.id)
        if (!memberships.some((team) => isOwnerTeam(team) || team.canCreateOrgRepo)) {
          return yield* new Forbidden({ message: mayNotCreateInOrgMessage(org.name) })
        }
      }
      return org
    })

  /**
   * `POST /repos/{o}/{r}/forks` (the caller already passed the code-read gate). Errors in order:
   * Invalid `org does not exist` (422), Forbidden `User is no Member of Organisation '<org>'`, then
   * `User is not allowed to create repos in Organisation '<org>'` (403),
   * AlreadyExists `repository is already forked by user [...]` or `repository already exists
   * [uname: o, name: n]` (409), Invalid for an unusable name (422).
   */
  const fork = (
    doer: User,
    base: OwnedRepository,
    input: ForkInput
  ): Effect.Effect<{ readonly fork: Repository; readonly owner: User }, ForkFailure, GitTransfers> =>
    Effect.scoped(Effect.gen(function*() {
      const owner = yield* forkOwner(doer, input.organization)
      const name = input.name ?? base.repository.name
      const existingFork = yield* store.findFork(owner.id, base.repository.id)
      if (Option.isSome(existingFork)) {
        return yield* new AlreadyExists({ message: alreadyForkedMessage(owner.name, base, existingFork.value) })
      }
      const taken = new AlreadyExists({ message: `repository already exists [uname: ${owner.name}, name: ${name}]` })
      if (Option.isSome(yield* store.find(owner.name, name))) return yield* taken
      // CreateForkOption has no binding rules in Forgejo; a name past the repository limit would
      // fail on disk, so it gets the limit of CreateRepoOption.
      if ([...name].length > REPOSITORY_NAME_MAX_LENGTH) return yield* new Invalid({ field: "Name", message: "[Name]: MaxSize" })
      yield* checkUsableRepositoryName(name)
      yield* refuseLeftFiles(deps, { owner: owner.name, name })
      const transfers = yield* GitTransfers
      const staged = yield* transfers.fork({ owner: base.owner.name, name: base.repository.name }).pipe(
        Effect.catchTag("NotFound", (error) => Effect.die(error))
      )
      const now = yield* deps.now
      const { repository } = base
      const created = yield* adoptStaged(deps, owner, newRepository({
        ownerId: owner.id,
        name,
        description: repository.description,
        defaultBranch: repository.defaultBranch,
        wikiBranch: repository.wikiBranch,
        isPrivate: repository.isPrivate || base.owner.visibility === "private",
        isEmpty: repository.isEmpty,
        isFork: true,
        forkId: repository.id,
        objectFormat: repository.objectFormat,
        trustModel: repository.trustModel,
        units: forkUnits
      }, now), staged).pipe(
        // A row that appeared meanwhile reads as Forgejo's fork text; files keep their own.
        Effect.catchTag("AlreadyExists", (error) => Effect.fail(error.message === REPOSITORY_EXISTS_MESSAGE ? taken : error))
      )
      return { fork: created, owner }
    }))

  return { fork }
}
