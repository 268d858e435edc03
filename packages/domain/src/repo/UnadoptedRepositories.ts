/**
 * Unadopted repositories (Forgejo's admin API): directories under the repository root that no row
 * names, left by a crash between the disk step and the commit or copied in by an administrator.
 * They can be listed, adopted (a private repository is created from the directory: default branch,
 * emptiness, size and branch table come from what git holds) or deleted.
 * [routers/api/v1/admin/adopt.go, services/repository/adopt.go]
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { repositoryDirectoryKey, WriteLocks } from "../coordination/WriteLocks.ts"
import { NotFound } from "../errors.ts"
import { Branches } from "../git/Branches.ts"
import { GitStorage, type RepositoryLocation } from "../git/GitStorage.ts"
import type { GitStorageFailure } from "../git/GitStorageFailure.ts"
import { RepositoryDirectories } from "../git/RepositoryDirectories.ts"
import { offsetOf, type Page, type PageRequest } from "../Paging.ts"
import type { User } from "../user/User.ts"
import { UserStore } from "../user/UserStore.ts"
import { DirectorySteps } from "./DirectorySteps.ts"
import { nameGlob } from "./NameGlob.ts"
import { RepositorySettings } from "./Repositories.ts"
import { newRepository, type OwnedRepository } from "./Repository.ts"
import { RepositoryInventory } from "./RepositoryInventory.ts"
import { unusableRepositoryNameReason } from "./RepositoryName.ts"
import { RepositoryRedirectStore } from "./RepositoryRedirectStore.ts"
import { RepositoryStore } from "./RepositoryStore.ts"
import { Transactions } from "./Transactions.ts"

/** Forgejo's `ctx.NotFound()`: no text of its own. */
const notUnadopted = (owner: string, name: string) =>
  new NotFound({ message: `no unadopted repository [owner: ${owner}, name: ${name}]` })

/**
 * The default branch of an adopted repository, in Forgejo's order: the branch HEAD names when it
 * exists, else the instance default, `master`, `main`, the first branch; none when there are none.
 */
export const adoptedDefaultBranch = (
  head: Option.Option<string>,
  branches: ReadonlyArray<string>,
  instanceDefault: string
): Option.Option<string> => {
  const preferred = [...Option.toArray(head), instanceDefault, "master", "main"]
  const found = preferred.find((name) => branches.includes(name)) ?? branches[0]
  return Option.fromUndefinedOr(found)
}

/**
 * Which locations of `directories` are unadopted: an owner that exists, a usable lower-case name,
 * no row. Filtered by `pattern` (`owner-glob[/name-glob]`), in storage order.
 */
export const unadoptedAmong = (
  directories: ReadonlyArray<RepositoryLocation>,
  rows: ReadonlyArray<RepositoryLocation>,
  owners: ReadonlySet<string>,
  pattern: string
): ReadonlyArray<string> => {
  const [ownerPattern = "", namePattern] = pattern === "" ? [] : pattern.split(/\/(.*)/s, 2)
  const ownerMatches = pattern === "" ? () => true : nameGlob(ownerPattern)
  const nameMatches = namePattern === undefined ? () => true : nameGlob(namePattern)
  const stored = new Set(rows.map((row) => `${row.owner}/${row.name}`))
  return directories
    .filter(({ owner, name }) =>
      owners.has(owner) && ownerMatches(owner) && nameMatches(name) && name.toLowerCase() === name &&
      unusableRepositoryNameReason(name) === undefined && !stored.has(`${owner}/${name}`))
    .map(({ owner, name }) => `${owner}/${name}`)
}

export class UnadoptedRepositories extends Context.Service<UnadoptedRepositories, {
  /** `GET /admin/unadopted`: `owner/name` strings, paged; `total` counts every match. */
  readonly list: (pattern: string, page: PageRequest) => Effect.Effect<Page<string>, GitStorageFailure>
  /**
   * `POST /admin/unadopted/{owner}/{repo}`: NotFound when the owner is unknown, a row has the name,
   * the name is unusable or there is no directory (Forgejo: 404).
   */
  readonly adopt: (ownerName: string, name: string) => Effect.Effect<OwnedRepository, NotFound | GitStorageFailure>
  /** `DELETE /admin/unadopted/{owner}/{repo}`: NotFound as for `adopt`. */
  readonly remove: (ownerName: string, name: string) => Effect.Effect<void, NotFound | GitStorageFailure>
}>()("@kiln/domain/repo/UnadoptedRepositories") {}

export const layer: Layer.Layer<
  UnadoptedRepositories,
  never,
  | RepositoryInventory
  | RepositoryDirectories
  | RepositoryStore
  | RepositoryRedirectStore
  | UserStore
  | GitStorage
  | Branches
  | Transactions
  | WriteLocks
  | DirectorySteps
> = Layer.effect(
  UnadoptedRepositories,
  Effect.gen(function*() {
    const inventory = yield* RepositoryInventory
    const directories = yield* RepositoryDirectories
    const store = yield* RepositoryStore
    const redirects = yield* RepositoryRedirectStore
    const users = yield* UserStore
    const git = yield* GitStorage
    const branchTable = yield* Branches
    const transactions = yield* Transactions
    const writeLocks = yield* WriteLocks
    const steps = yield* DirectorySteps
    /**
     * Under the directory's key, which a repository's creation, fork, migration or rename holds
     * until its row commits: the checks then see that row, never a directory about to get one.
     */
    const lockedUnadopted = <A, E, R>(ownerName: string, name: string, use: (found: { owner: User; location: RepositoryLocation }) => Effect.Effect<A, E, R>) =>
      writeLocks.withLock(
        repositoryDirectoryKey({ owner: ownerName, name }),
        // A directory an interrupted step left is undone, not adopted: a later settle would undo it under its new row.
        steps.settleHeld({ owner: ownerName, name }).pipe(Effect.andThen(unadopted(ownerName, name)), Effect.flatMap(use))
      )

    /** The owner and location of an unadopted directory, or NotFound. */
    const unadopted = (ownerName: string, name: string) =>
      Effect.gen(function*() {
        const owner = yield* users.findByName(ownerName)
        if (Option.isNone(owner) || unusableRepositoryNameReason(name) !== undefined) return yield* notUnadopted(ownerName, name)
        if (Option.isSome(yield* store.find(owner.value.name, name))) return yield* notUnadopted(ownerName, name)
        const location: RepositoryLocation = { owner: owner.value.name, name }
        const exists = yield* directories.exists(location).pipe(Effect.catchTag("Invalid", () => Effect.succeed(false)))
        if (!exists) return yield* notUnadopted(ownerName, name)
        return { owner: owner.value, location }
      })

    const adoptInto = (owner: User, location: RepositoryLocation) =>
      Effect.gen(function*() {
        const settings = yield* RepositorySettings
        const missing = () => notUnadopted(owner.name, location.name)
        const head = yield* directories.head(location).pipe(Effect.mapError(missing))
        const branches = yield* git.branchNames(location).pipe(Effect.mapError(missing))
        const size = yield* git.sizeInBytes(location).pipe(Effect.mapError(missing))
        const chosen = adoptedDefaultBranch(head, branches, settings.defaultBranch)
        const defaultBranch = Option.getOrElse(chosen, () => settings.defaultBranch)
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const movesHead = Option.getOrUndefined(head) !== defaultBranch
        const created = yield* transactions.run(Effect.gen(function*() {
          const row = yield* store.insert(newRepository({
            ownerId: owner.id,
            name: location.name,
            description: "",
            defaultBranch,
            wikiBranch: settings.defaultBranch,
            isPrivate: true,
            isEmpty: Option.isNone(chosen),
            size
          }, now)).pipe(Effect.mapError(missing))
          yield* redirects.release(owner.id, location.name)
          // The one disk step, last: HEAD names the chosen branch.
          if (movesHead) yield* git.setDefaultBranch(location, defaultBranch).pipe(Effect.catchTag("NotFound", () => Effect.fail(missing())), Effect.catchTag("Invalid", Effect.die))
          return row
        })).pipe(
          Effect.onError(() =>
            // A failed commit after HEAD moved puts HEAD back (a detached or unreadable one stays moved).
            movesHead && Option.isSome(head)
              ? git.setDefaultBranch(location, head.value).pipe(Effect.ignore)
              : Effect.void
          )
        )
        const owned: OwnedRepository = { repository: created, owner }
        if (!created.isEmpty) yield* branchTable.resync(owned)
        return owned
      })

    return UnadoptedRepositories.of({
      list: (pattern, page) =>
        Effect.gen(function*() {
          const found = yield* directories.list
          const rows = yield* inventory.locations
          const owners = yield* inventory.existingOwners([...new Set(found.map((location) => location.owner))])
          const matches = unadoptedAmong(found, rows, owners, pattern)
          const start = offsetOf(page)
          return { items: matches.slice(start, start + page.limit), total: matches.length }
        }),
      adopt: (ownerName, name) => lockedUnadopted(ownerName, name, ({ owner, location }) => adoptInto(owner, location)),
      remove: (ownerName, name) =>
        lockedUnadopted(ownerName, name, ({ location }) => git.remove(location).pipe(Effect.catchTag("Invalid", Effect.die)))
    })
  })
)
