/**
 * Repositories (api-facts §4.1–4.7): creation with the initial commit, lookups with THE access
 * rule (`repositoryAccess`), edits, deletion, listings, search and collaborators.
 *
 * The database row and the bare repository on disk change together. Every disk step runs inside
 * the row's transaction (DirectorySteps.ts): a failed disk step rolls the row back; when the commit
 * itself fails after the disk step, or never comes (a killed process), the disk step is undone.
 * Deletion moves the repository to a tombstone inside the transaction and only erases the tombstone after the commit (retried, then reported), so a row
 * never points at nothing and a failed erase never blocks the name.
 * [routers/api/v1/repo/repo.go, collaborators.go, services/repository/create.go, delete.go]
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { AlreadyExists, Conflict, Forbidden, Invalid, NotFound } from "../errors.ts"
import { Branches } from "../git/Branches.ts"
import { repositoryKey, WriteLocks } from "../coordination/WriteLocks.ts"
import { GitArchives } from "../git/GitArchives.ts"
import { type InitialCommit, GitStorage, type RepositoryLocation } from "../git/GitStorage.ts"
import type { GitStorageFailure } from "../git/GitStorageFailure.ts"
import type { GitTransfers } from "../git/GitTransfers.ts"
import { RepositoryDirectories } from "../git/RepositoryDirectories.ts"
import { isValidRefName } from "../git/RefName.ts"
import { type AccessMode, atLeast, parseAccessMode } from "../org/AccessMode.ts"
import { ORG_HIDDEN_MESSAGE, orgNotFoundMessage, ownsRepositoriesMessage } from "../org/Organization.ts"
import { checkHttpUrl } from "../org/HttpUrl.ts"
import { canSeeAccount } from "../org/OrgVisibility.ts"
import { repositoryAccess, type RepositoryAccess } from "../org/RepositoryAccess.ts"
import { isOwnerTeam } from "../org/Team.ts"
import { TeamStore } from "../org/TeamStore.ts"
import type { Page, PageRequest } from "../Paging.ts"
import { signingKeyFor } from "../signing/SigningKeyResolution.ts"
import { SigningKeys } from "../signing/SigningKeys.ts"
import type { User } from "../user/User.ts"
import { UserStore } from "../user/UserStore.ts"
import { DirectorySteps } from "./DirectorySteps.ts"
import { type ForkFailure, type ForkInput, makeForks, refuseLeftFiles } from "./Forks.ts"
import { InitialFiles } from "./InitialFiles.ts"
import { makeMigrations, type MigrateInput, type MigrationFailure } from "./Migrations.ts"
import type { DirectoryUndo } from "./PendingDirectorySteps.ts"
import {
  type ExternalTrackerSettings,
  isMergeStyle,
  isUpdateStyle,
  type OwnedRepository,
  newRepository,
  type Repository,
  type RepositoryChanges,
  REPOSITORY_EXISTS_MESSAGE,
  repositoryNotFoundMessage,
  trustModelOf
} from "./Repository.ts"
import { RepositoryMoved } from "./RepositoryMoved.ts"
import { bindRepositoryName, checkUsableRepositoryName, lowerRepositoryName } from "./RepositoryName.ts"
import { RepositoryRedirectStore } from "./RepositoryRedirectStore.ts"
import { ownedBySearch, type RepositorySearch } from "./RepositorySearch.ts"
import { type AccessFacts, RepositoryStore } from "./RepositoryStore.ts"
import { Transactions } from "./Transactions.ts"
import { toggledUnits } from "./UnitToggles.ts"

/** Instance settings: `[repository] DEFAULT_BRANCH`, `FORCE_PRIVATE`, and the host of hidden e-mail addresses. */
export interface RepositorySettingsShape {
  readonly defaultBranch: string
  readonly forcePrivate: boolean
  readonly noReplyDomain: string
}

/**
 * What else goes with a deleted repository (release attachment files, ...), each concern
 * contributing a step: run before the row is deleted, it gathers what to clean and returns the
 * cleanup, which runs once the deletion has committed (files outlive a rolled-back deletion).
 */
export class RepositoryCleanups extends Context.Reference<
  ReadonlyArray<(repository: Repository) => Effect.Effect<Effect.Effect<void>>>
>("@kiln/domain/repo/RepositoryCleanups", { defaultValue: () => [] }) {}

export class RepositorySettings extends Context.Reference<RepositorySettingsShape>("@kiln/domain/repo/RepositorySettings", {
  defaultValue: () => ({ defaultBranch: "main", forcePrivate: false, noReplyDomain: "noreply.localhost" })
}) {}

/** A repository the caller may see, with the caller's access. */
export interface AccessibleRepository extends OwnedRepository {
  readonly access: RepositoryAccess
  /** A fork's base repository (shown with the fork's access), when it still exists. */
  readonly parent?: OwnedRepository | undefined
}

/** What a public-only token may reach: a public repository of a public owner. */
export const isPublicRepository = (target: OwnedRepository): boolean =>
  !target.repository.isPrivate && target.owner.visibility === "public"

/** CreateRepoOption. */
export interface CreateRepositoryInput {
  readonly name: string
  readonly description?: string | undefined
  readonly private?: boolean | undefined
  readonly issueLabels?: string | undefined
  readonly autoInit?: boolean | undefined
  readonly template?: boolean | undefined
  /** Comma-separated template names. */
  readonly gitignores?: string | undefined
  readonly license?: string | undefined
  readonly readme?: string | undefined
  readonly defaultBranch?: string | undefined
  readonly trustModel?: string | undefined
  readonly objectFormatName?: string | undefined
}

/** EditRepoOption (the fields Kiln keeps); absent fields stay as they are. */
export interface EditRepositoryInput {
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly website?: string | undefined
  readonly private?: boolean | undefined
  readonly template?: boolean | undefined
  readonly hasIssues?: boolean | undefined
  readonly internalTracker?: {
    readonly enableTimeTracker: boolean
    readonly allowOnlyContributorsToTrackTime: boolean
    readonly enableIssueDependencies: boolean
  } | undefined
  /** Switches the issues unit to an external tracker (`external_tracker`). */
  readonly externalTracker?: ExternalTrackerSettings | undefined
  readonly hasWiki?: boolean | undefined
  /** Switches the wiki unit to an external wiki at this URL (`external_wiki`). */
  readonly externalWikiUrl?: string | undefined
  readonly globallyEditableWiki?: boolean | undefined
  readonly defaultBranch?: string | undefined
  readonly hasPullRequests?: boolean | undefined
  readonly hasProjects?: boolean | undefined
  readonly hasReleases?: boolean | undefined
  readonly hasPackages?: boolean | undefined
  readonly hasActions?: boolean | undefined
  readonly ignoreWhitespaceConflicts?: boolean | undefined
  readonly allowMerge?: boolean | undefined
  readonly allowRebase?: boolean | undefined
  readonly allowRebaseMerge?: boolean | undefined
  readonly allowSquash?: boolean | undefined
  readonly allowFastForwardOnly?: boolean | undefined
  readonly allowManualMerge?: boolean | undefined
  readonly autodetectManualMerge?: boolean | undefined
  readonly allowRebaseUpdate?: boolean | undefined
  readonly defaultDeleteBranchAfterMerge?: boolean | undefined
  readonly defaultMergeStyle?: string | undefined
  readonly defaultUpdateStyle?: string | undefined
  readonly defaultAllowMaintainerEdit?: boolean | undefined
  readonly archived?: boolean | undefined
}

export const NOT_ALLOWED_IN_ORG_MESSAGE = "Given user is not allowed to create repository in organization."
export const REQUIRE_ADMIN_MESSAGE = "user should be an owner or a collaborator with admin write of a repository"
export const REQUIRE_OWNER_MESSAGE = "user should be the owner of the repo"
export const NOT_ORG_OWNER_MESSAGE = "Given user is not owner of organization."
export const PERMISSION_QUERY_MESSAGE =
  "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own"
export const INACTIVE_COLLABORATOR_MESSAGE = "collaborator's account is inactive"

export class Repositories extends Context.Service<Repositories, {
  /**
   * THE lookup of `/repos/{owner}/{repo}/...`: the repository with the caller's access. NotFound
   * `user does not exist [uid: 0, name: x]` for an unknown owner (Forgejo: 404 `GetUserByName`);
   * RepositoryMoved when `name` is an old name of a repository the caller may see (Forgejo:
   * `RedirectToRepo`); otherwise NotFound `repository does not exist [...]` when it is missing or
   * the caller has no access (Forgejo: the generic 404).
   */
  readonly accessible: (
    viewer: Option.Option<User>,
    ownerName: string,
    name: string
  ) => Effect.Effect<AccessibleRepository, NotFound | RepositoryMoved>
  /** `GET /repositories/{id}`: as `accessible`, by id. */
  readonly accessibleById: (viewer: Option.Option<User>, id: number) => Effect.Effect<AccessibleRepository, NotFound>
  /** The access of `viewer` to each repository (batched lookups), in order. */
  readonly withAccess: (viewer: Option.Option<User>, repositories: ReadonlyArray<OwnedRepository>) => Effect.Effect<ReadonlyArray<AccessibleRepository>>
  /**
   * The organization of `/orgs/{org}/repos`: NotFound `org does not exist [id: 0, name: x]`, then
   * (with `checkVisibility`) NotFound `HasOrgOrUserVisible` when the viewer may not see it.
   */
  readonly organization: (viewer: Option.Option<User>, name: string, checkVisibility: boolean) => Effect.Effect<User, NotFound>
  /**
   * Creates a repository of `owner` on behalf of `doer`. Errors in order: Invalid binding
   * `[Name]: Required|AlphaDashDot|MaxSize`, `[Description]: MaxSize`, `[DefaultBranch]: GitRefName|MaxSize`
   * (422); Forbidden `Given user is not allowed to create repository in organization.` (403); Invalid
   * with field `readme` `readme template does not exist, available templates: [...]` (Forgejo: 400);
   * Invalid for other unknown templates, label sets, object formats and unusable names (422);
   * AlreadyExists `The repository with the same name already exists.`, then `repository files already
   * exist [...]` when a directory without a row holds the name (409, the files untouched);
   * GitStorageFailure when the disk refused (neither row nor files remain).
   */
  readonly create: (
    doer: User,
    owner: User,
    input: CreateRepositoryInput
  ) => Effect.Effect<AccessibleRepository, Invalid | Forbidden | AlreadyExists | GitStorageFailure>
  /**
   * `PATCH /repos/{o}/{r}`: repository admins. Forbidden (403); Invalid binding `[Name]: AlphaDashDot|MaxSize`,
   * `[Description]: MaxSize`, `[Website]: MaxSize`, `[DefaultMergeStyle]: In`, `[DefaultUpdateStyle]: In`,
   * then `name is reserved [...]`, `repository already exists [uname: o, name: n]`,
   * `cannot change private repository to public`, `repo is a mirror, cannot archive/un-archive` (422).
   */
  readonly edit: (
    doer: User,
    target: AccessibleRepository,
    input: EditRepositoryInput
  ) => Effect.Effect<AccessibleRepository, Invalid | Forbidden | Conflict | NotFound | GitStorageFailure>
  /**
   * `DELETE /repos/{o}/{r}`: Forbidden `user should be the owner of the repo`, then (organization
   * repositories) `Given user is not owner of organization.` (403); NotFound when another request
   * deleted it first.
   */
  readonly remove: (doer: User, target: AccessibleRepository) => Effect.Effect<void, Forbidden | NotFound | GitStorageFailure>
  /**
   * `GET /users/{u}/repos`, `GET /orgs/{org}/repos`: by id; private ones only with `includePrivate`.
   * Items the viewer may not access are dropped (site admins see all); `total` counts the whole set.
   */
  readonly listForOwner: (
    viewer: Option.Option<User>,
    owner: User,
    includePrivate: boolean,
    page: PageRequest
  ) => Effect.Effect<Page<AccessibleRepository>>
  /** `GET /repos/search`, `GET /user/repos` (build the query with `parseSearch` / `parseOwnSearch`). */
  readonly search: (viewer: Option.Option<User>, query: RepositorySearch) => Effect.Effect<Page<AccessibleRepository>>
  readonly collaborators: (target: AccessibleRepository, page: PageRequest) => Effect.Effect<Page<User>>
  readonly isCollaborator: (target: AccessibleRepository, user: User) => Effect.Effect<boolean>
  /**
   * `PUT .../collaborators/{c}` (repository admins): a new collaborator gets `write`; `permission`
   * read/write/admin then sets the level, anything else is ignored. Conflict for an inactive account
   * (Forgejo: 500).
   */
  readonly addCollaborator: (
    doer: User,
    target: AccessibleRepository,
    user: User,
    permission: string | undefined
  ) => Effect.Effect<void, Forbidden | Conflict>
  /** `DELETE .../collaborators/{c}` (repository admins); also when `user` is no collaborator. */
  readonly removeCollaborator: (doer: User, target: AccessibleRepository, user: User) => Effect.Effect<void, Forbidden>
  /**
   * `GET .../collaborators/{c}/permission`: site admins, repository admins and the user themself;
   * Forbidden otherwise. The user's repository-wide level.
   */
  readonly permissionOf: (doer: User, target: AccessibleRepository, user: User) => Effect.Effect<AccessMode, Forbidden>
  /**
   * After a push: recomputes the size, leaves `empty` once a branch exists, moves the default branch
   * to a pushed one when the repository was empty and its default is missing, and bumps `updated_at`.
   * `branches`: the branch names after the push (in name order) when the transport read them in its
   * write section; read from the repository otherwise. `known`: the repository as the push's access
   * decision read it, written over in one statement when it still is (RepositoryStore.updateAfterPush).
   */
  readonly recordPush: (
    repositoryId: number,
    branches?: ReadonlyArray<string>,
    known?: OwnedRepository
  ) => Effect.Effect<Repository, NotFound | GitStorageFailure>
  /**
   * `POST /repos/{o}/{r}/forks` (see Forks.ts for the errors); the fork answers as if the caller
   * owned it. Needs the GitTransfers adapter at call time.
   */
  readonly fork: (doer: User, base: AccessibleRepository, input: ForkInput) => Effect.Effect<AccessibleRepository, ForkFailure, GitTransfers>
  /** `GET /repos/{o}/{r}/forks`: the forks the viewer may see, by id. */
  readonly listForks: (viewer: Option.Option<User>, base: AccessibleRepository) => Effect.Effect<ReadonlyArray<AccessibleRepository>>
  /** `POST /repos/migrate` (see Migrations.ts for the errors), answering with admin-level permissions. */
  readonly migrate: (doer: User, input: MigrateInput) => Effect.Effect<AccessibleRepository, MigrationFailure, GitTransfers>
  /** For account and organization deletion guards: `user still has ownership of repositories [uid: N]`. */
  readonly ownershipGuard: (owner: User) => Effect.Effect<Option.Option<string>>
}>()("@kiln/domain/repo/Repositories") {}

const noFacts: AccessFacts = { collaborations: new Map(), teams: new Map(), memberOf: new Set() }

const accessWith = (viewer: Option.Option<User>, owned: OwnedRepository, facts: AccessFacts): RepositoryAccess => {
  const { repository, owner } = owned
  return repositoryAccess({
    caller: viewer,
    owner,
    repository: { id: repository.id, isPrivate: repository.isPrivate, units: repository.units.enabled },
    collaboration: Option.fromUndefinedOr(facts.collaborations.get(repository.id)),
    teams: facts.teams.get(repository.id) ?? [],
    isOrgMember: facts.memberOf.has(owner.id)
  })
}

/** A fork whose base may still exist (its `parent`). */
const isForkOfSome = (owned: OwnedRepository): boolean => owned.repository.isFork && owned.repository.forkId > 0

/** Whether access needs no stored facts: anonymous callers, site admins, owners. */
const decidedWithoutFacts = (viewer: Option.Option<User>, owned: OwnedRepository): boolean =>
  Option.match(viewer, { onNone: () => true, onSome: (user) => user.isAdmin || user.id === owned.owner.id })

const maxSize = (value: string | undefined, max: number, field: string): Effect.Effect<void, Invalid> =>
  value !== undefined && [...value].length > max ? Effect.fail(new Invalid({ field, message: `[${field}]: MaxSize` })) : Effect.void

/** `[DefaultBranch]: GitRefName|MaxSize`; "" is "not given". */
const checkDefaultBranch = (value: string): Effect.Effect<void, Invalid> =>
  value !== "" && !isValidRefName(value)
    ? Effect.fail(new Invalid({ field: "DefaultBranch", message: "[DefaultBranch]: GitRefName" }))
    : maxSize(value, 100, "DefaultBranch")

const nowSeconds = Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000))

const locationOf = (owned: OwnedRepository): RepositoryLocation => ({ owner: owned.owner.name, name: owned.repository.name })

/** Where a repository waits to be erased: a name ending in `.git`, which no live repository may have. */
const tombstoneOf = (owned: OwnedRepository): RepositoryLocation => ({
  owner: owned.owner.name,
  name: `${owned.repository.lowerName}.deleted-${owned.repository.id}.git`
})



export const layer: Layer.Layer<
  Repositories,
  never,
  | RepositoryStore
  | RepositoryRedirectStore
  | TeamStore
  | UserStore
  | GitStorage
  | RepositoryDirectories
  | InitialFiles
  | Transactions
  | WriteLocks
  | DirectorySteps
> = Layer.effect(
  Repositories,
  Effect.gen(function*() {
    const store = yield* RepositoryStore
    const redirects = yield* RepositoryRedirectStore
    const teams = yield* TeamStore
    const users = yield* UserStore
    const git = yield* GitStorage
    const directories = yield* RepositoryDirectories
    // Without a signing key service (e.g. an embedding without one) initial commits are unsigned.
    const signingKeys = yield* Effect.serviceOption(SigningKeys)
    // Without the branch table (an embedding without it) nothing records the initial branch.
    const branchTable = yield* Effect.serviceOption(Branches)
    // Without the archive cache (an embedding without it) there are no archives to forget.
    const archives = yield* Effect.serviceOption(GitArchives)
    const initialFiles = yield* InitialFiles
    const writeLocks = yield* WriteLocks
    const transactions = yield* Transactions
    const steps = yield* DirectorySteps

    /** The base repositories of the forks among `owned`, by id. */
    const parentsOf = (owned: ReadonlyArray<OwnedRepository>) =>
      Effect.gen(function*() {
        const ids = [...new Set(owned.flatMap((item) => (isForkOfSome(item) ? [item.repository.forkId] : [])))]
        const found = yield* store.findByIds(ids)
        return new Map(found.map((parent) => [parent.repository.id, parent] as const))
      })

    const withAccess = (
      viewer: Option.Option<User>,
      owned: ReadonlyArray<OwnedRepository>
    ): Effect.Effect<ReadonlyArray<AccessibleRepository>> => {
      const needFacts = Option.isSome(viewer) ? owned.filter((item) => !decidedWithoutFacts(viewer, item)) : []
      // Anonymous callers, site admins and owners of repositories that are no forks (the lookups of
      // hot reads) need no store: their answer is computed in place.
      if (needFacts.length === 0 && !owned.some(isForkOfSome)) {
        return Effect.succeed(owned.map((item) => ({ ...item, access: accessWith(viewer, item, noFacts), parent: undefined })))
      }
      return Effect.gen(function*() {
        const facts = Option.isSome(viewer) && needFacts.length > 0
          ? yield* store.accessFacts(viewer.value.id, needFacts.map((item) => item.repository))
          : noFacts
        const parents = yield* parentsOf(owned)
        return owned.map((item): AccessibleRepository => ({
          ...item,
          access: accessWith(viewer, item, facts),
          parent: parents.get(item.repository.forkId)
        }))
      })
    }

    const accessOf = (viewer: Option.Option<User>, owned: OwnedRepository) =>
      Effect.map(withAccess(viewer, [owned]), (items) => items[0]?.access ?? accessWith(viewer, owned, noFacts))

    const hiddenOrMissing = (ownerName: string, name: string) => new NotFound({ message: repositoryNotFoundMessage(ownerName, name) })

    const reveal = (viewer: Option.Option<User>, owned: OwnedRepository, ownerName: string, name: string) =>
      Effect.flatMap(withAccess(viewer, [owned]), ([item]) =>
        item !== undefined && item.access.hasAccess ? Effect.succeed(item) : Effect.fail(hiddenOrMissing(ownerName, name)))

    const accessible = (viewer: Option.Option<User>, ownerName: string, name: string) =>
      Effect.flatMap(store.find(ownerName, name), (found) =>
        Option.isSome(found) ? reveal(viewer, found.value, ownerName, name) : missing(viewer, ownerName, name))

    /** No repository of that name: an unknown owner, an old name that leads on, or a 404. */
    const missing = (viewer: Option.Option<User>, ownerName: string, name: string) =>
      Effect.gen(function*() {
        const owner = yield* users.findByName(ownerName)
        if (Option.isNone(owner)) {
          return yield* new NotFound({ message: `user does not exist [uid: 0, name: ${ownerName}]` })
        }
        // An old name leads on only for those who may see where: nobody learns of a hidden repository.
        const redirect = yield* redirects.find(owner.value.id, name)
        const moved = Option.isSome(redirect) ? yield* store.findById(redirect.value) : Option.none()
        if (Option.isSome(moved)) {
          const target = yield* reveal(viewer, moved.value, ownerName, name)
          return yield* new RepositoryMoved({ owner: target.owner.name, name: target.repository.name })
        }
        return yield* hiddenOrMissing(ownerName, name)
      })

    /** Cached archives carry the repository's name: they go when it goes or is renamed (logged, never fatal). */
    const forgetArchives = (repository: Repository) =>
      Option.match(archives, {
        onNone: () => Effect.void,
        onSome: (cache) =>
          cache.discard(repository.id).pipe(
            Effect.catchCause((cause) => Effect.logWarning(`archives of repository ${repository.id} stay in the cache`, cause))
          )
      })

    const reload = (viewer: Option.Option<User>, id: number) =>
      Effect.flatMap(store.findById(id), (found) =>
        Option.isSome(found)
          ? Effect.flatMap(withAccess(viewer, [found.value]), ([item]) =>
            item === undefined ? Effect.die(new Error(`repository ${id} vanished during the request`)) : Effect.succeed(item))
          : Effect.die(new Error(`repository ${id} vanished during the request`)))

    const requireAdmin = (target: AccessibleRepository) =>
      atLeast(target.access.mode, "admin") ? Effect.void : Effect.fail(new Forbidden({ message: REQUIRE_ADMIN_MESSAGE }))

    /** Owners, and teams allowed to create repositories (the Owners team always is). */
    const mayCreateIn = (doer: User, owner: User) =>
      Effect.gen(function*() {
        if (doer.isAdmin || doer.id === owner.id) return true
        if (owner.kind !== "organization") return false
        const memberships = yield* teams.listForMember(owner.id, doer.id)
        return memberships.some((team) => isOwnerTeam(team) || team.canCreateOrgRepo)
      })

    const diskStepInTransaction = steps.inTransaction

    const initialCommit = (doer: User, owner: User, name: string, files: InitialCommit["files"]) =>
      Effect.gen(function*() {
        const settings = yield* RepositorySettings
        const when = { seconds: yield* nowSeconds, offsetMinutes: 0 }
        const author = {
          name: doer.fullName === "" ? doer.name : doer.fullName,
          email: doer.keepEmailPrivate ? `${doer.lowerName}@${settings.noReplyDomain}` : doer.email,
          when
        }
        const key = Option.map(signingKeys, (instanceKey) => signingKeyFor(instanceKey, { owner: owner.name, name }))
        const signer = Option.flatMap(key, (found) => Option.map(found.identity, (identity) => ({ identity, key: found })))
        const commit: InitialCommit = Option.match(signer, {
          onNone: () => ({ files, message: "Initial commit\n", author, committer: author }),
          onSome: ({ identity, key }) => ({
            files,
            message: "Initial commit\n",
            author,
            committer: { name: identity.name, email: identity.email, when },
            sign: (payload: string) => Effect.map(key.sign(payload), Option.getOrElse(() => ""))
          })
        })
        return commit
      })

    const create = (doer: User, owner: User, input: CreateRepositoryInput) =>
      Effect.gen(function*() {
        const settings = yield* RepositorySettings
        yield* bindRepositoryName(input.name, "Name")
        yield* maxSize(input.description, 2048, "Description")
        const defaultBranchInput = input.defaultBranch ?? ""
        yield* checkDefaultBranch(defaultBranchInput)
        yield* maxSize(input.objectFormatName, 6, "ObjectFormatName")
        if (!(yield* mayCreateIn(doer, owner))) return yield* new Forbidden({ message: NOT_ALLOWED_IN_ORG_MESSAGE })

        const autoInit = input.autoInit ?? false
        const defaultBranch = defaultBranchInput === "" ? settings.defaultBranch : defaultBranchInput
        const description = input.description ?? ""
        const files = autoInit
          ? Option.some(yield* initialFiles.render({
            owner: owner.name,
            name: input.name,
            description,
            year: new Date((yield* nowSeconds) * 1000).getUTCFullYear(),
            readme: input.readme === undefined || input.readme === "" ? "Default" : input.readme,
            gitignores: (input.gitignores ?? "").split(",").map((name) => name.trim()).filter((name) => name !== ""),
            ...(input.license === undefined || input.license === "" ? {} : { license: input.license })
          }))
          : Option.none()
        yield* checkUsableRepositoryName(input.name)
        if (input.issueLabels !== undefined && input.issueLabels !== "") {
          return yield* new Invalid({ message: `Failed to load label template file "${input.issueLabels}": label set does not exist` })
        }
        const objectFormat = input.objectFormatName ?? ""
        if (objectFormat !== "" && objectFormat !== "sha1") {
          return yield* new Invalid({ message: `object format ${objectFormat} is not supported` })
        }

        const now = yield* nowSeconds
        const location: RepositoryLocation = { owner: owner.name, name: input.name }
        // A row of that name, then a directory without one (an unadopted repository; one that an
        // interrupted step left is undone first), refuse before the initial commit is made.
        if (Option.isSome(yield* store.find(owner.name, input.name))) {
          return yield* new AlreadyExists({ message: REPOSITORY_EXISTS_MESSAGE })
        }
        yield* refuseLeftFiles(transferDeps, location)
        const initial = Option.isSome(files) ? Option.some(yield* initialCommit(doer, owner, input.name, files.value)) : Option.none()
        const makeOnDisk = git.create(location, {
          defaultBranch,
          ...(Option.isSome(initial) ? { initialCommit: initial.value } : {})
        })
        // A directory without a row that appeared since fails the disk step with `repository files
        // already exist` before anything is written: the row rolls back, the files stay.
        const created = yield* diskStepInTransaction(location, makeOnDisk, [{ _tag: "Remove", location }])((onDisk) =>
          Effect.gen(function*() {
            const row = yield* store.insert(newRepository({
              ownerId: owner.id,
              name: input.name,
              description,
              defaultBranch,
              wikiBranch: settings.defaultBranch,
              isPrivate: (input.private ?? false) || settings.forcePrivate,
              isTemplate: input.template ?? false,
              isEmpty: !autoInit,
              trustModel: trustModelOf(input.trustModel)
            }, now)).pipe(Effect.mapError(() => new AlreadyExists({ message: REPOSITORY_EXISTS_MESSAGE })))
            yield* redirects.release(owner.id, input.name)
            yield* onDisk
            const size = yield* git.sizeInBytes(location).pipe(Effect.orDie)
            return yield* store.update(row.id, { size }).pipe(Effect.orDie)
          }))
        // Create answers as if the creator owned the repository (Forgejo's `AccessModeOwner`).
        const owned: OwnedRepository = { repository: created, owner }
        // The initial commit's branch is recorded now rather than at the first listing.
        if (!created.isEmpty && Option.isSome(branchTable)) yield* branchTable.value.resync(owned)
        return { ...owned, access: accessWith(Option.some(owner), owned, noFacts) }
      })

    const branchExists = (location: RepositoryLocation, branch: string) =>
      git.resolveCommit(location, `refs/heads/${branch}`).pipe(
        Effect.as(true),
        Effect.catch(() => Effect.succeed(false))
      )

    /**
     * Runs `change` as the repository's write section (across processes: no push, branch change,
     * rename or deletion of it interleaves), on its row as it is now: another request may have
     * renamed, archived or deleted it since `target` was read.
     */
    const inSection = <A, E, R>(target: AccessibleRepository, change: (current: AccessibleRepository) => Effect.Effect<A, E, R>) =>
      writeLocks.withLock(repositoryKey(target.repository.id), Effect.gen(function*() {
        const found = yield* store.findById(target.repository.id)
        if (Option.isNone(found)) return yield* hiddenOrMissing(target.owner.name, target.repository.name)
        return yield* change({ ...target, ...found.value })
      }))

    const edit = (doer: User, target: AccessibleRepository, input: EditRepositoryInput) => inSection(target, (current) => editNow(doer, current, input))

    const editNow = (doer: User, target: AccessibleRepository, input: EditRepositoryInput) =>
      Effect.gen(function*() {
        const settings = yield* RepositorySettings
        yield* requireAdmin(target)
        if (input.name !== undefined && input.name !== "") yield* bindRepositoryName(input.name, "Name")
        yield* maxSize(input.description, 2048, "Description")
        yield* maxSize(input.website, 1024, "Website")
        yield* checkHttpUrl(input.website, "Website")
        // Checked whatever the repository holds: an empty one stores the name as it is given.
        yield* checkDefaultBranch(input.defaultBranch ?? "")
        if (input.defaultMergeStyle !== undefined && !isMergeStyle(input.defaultMergeStyle)) {
          return yield* new Invalid({ field: "DefaultMergeStyle", message: "[DefaultMergeStyle]: In" })
        }
        if (input.defaultUpdateStyle !== undefined && !isUpdateStyle(input.defaultUpdateStyle)) {
          return yield* new Invalid({ field: "DefaultUpdateStyle", message: "[DefaultUpdateStyle]: In" })
        }
        const { repository, owner } = target
        const changes: { -readonly [K in keyof RepositoryChanges]: RepositoryChanges[K] } = {}
        const newName = input.name ?? repository.name
        const renamed = lowerRepositoryName(newName) !== repository.lowerName
        if (renamed) yield* checkUsableRepositoryName(newName)
        if (newName !== repository.name) changes.name = newName
        if (input.description !== undefined) changes.description = input.description
        if (input.website !== undefined) changes.website = input.website
        if (input.private !== undefined) {
          const wanted = repository.isFork ? repository.isPrivate : input.private
          if (wanted !== repository.isPrivate && settings.forcePrivate && !wanted && !doer.isAdmin) {
            return yield* new Invalid({ message: "cannot change private repository to public" })
          }
          changes.isPrivate = wanted
        }
        if (input.template !== undefined) changes.isTemplate = input.template
        if (input.archived !== undefined) {
          if (repository.isMirror) return yield* new Invalid({ message: "repo is a mirror, cannot archive/un-archive" })
          changes.isArchived = input.archived
          changes.archivedAt = input.archived ? yield* nowSeconds : 0
        }
        changes.units = yield* toggledUnits(repository.units, input)
        changes.updatedAt = yield* nowSeconds

        const from = locationOf(target)
        const to: RepositoryLocation = { owner: owner.name, name: newName }
        const newBranch = input.defaultBranch === "" ? undefined : input.defaultBranch
        const switchBranch = newBranch !== undefined && newBranch !== repository.defaultBranch &&
          (repository.isEmpty || (yield* branchExists(from, newBranch)))
        if (switchBranch) changes.defaultBranch = newBranch

        const taken = new Invalid({ message: `repository already exists [uname: ${owner.name}, name: ${newName}]` })
        const rowChange = store.update(repository.id, changes).pipe(
          Effect.mapError(() => taken),
          Effect.tap(() => renamed ? redirects.record(owner.id, repository.id, repository.name, newName) : Effect.void)
        )
        const moveOnDisk = renamed
          ? git.move(from, to).pipe(
            Effect.catchTag("AlreadyExists", (error) => Effect.fail(new Conflict({ message: error.message }))),
            Effect.catchTag("NotFound", (error) => Effect.die(error))
          )
          : Effect.void
        const branchOnDisk = switchBranch && !repository.isEmpty
          ? git.setDefaultBranch(to, newBranch).pipe(Effect.catchTag("NotFound", (error) => Effect.die(error)))
          : Effect.void
        const undo: Array<DirectoryUndo> = [
          ...(renamed ? [{ _tag: "Move", from: to, to: from } as const] : []),
          ...(switchBranch && !repository.isEmpty ? [{ _tag: "SetDefaultBranch", location: from, branch: repository.defaultBranch } as const] : [])
        ]
        yield* diskStepInTransaction(to, Effect.andThen(moveOnDisk, branchOnDisk), undo)((onDisk) =>
          Effect.andThen(rowChange, onDisk))
        if (renamed) yield* forgetArchives(repository)
        return yield* reload(Option.some(doer), repository.id)
      })

    const remove = (doer: User, target: AccessibleRepository) => inSection(target, (current) => removeNow(doer, current))

    const removeNow = (doer: User, target: AccessibleRepository) =>
      Effect.gen(function*() {
        if (!atLeast(target.access.mode, "owner")) return yield* new Forbidden({ message: REQUIRE_OWNER_MESSAGE })
        const { owner, repository } = target
        if (!doer.isAdmin && doer.id !== owner.id && owner.kind === "organization") {
          const memberships = yield* teams.listForMember(owner.id, doer.id)
          if (!memberships.some((team) => atLeast(team.permission, "admin"))) {
            return yield* new Forbidden({ message: NOT_ORG_OWNER_MESSAGE })
          }
        }
        const location = locationOf(target)
        const tombstone = tombstoneOf(target)
        const cleanups = yield* Effect.forEach(yield* RepositoryCleanups, (prepare) => prepare(repository))
        const toTombstone = git.move(location, tombstone).pipe(
          // Nothing on disk (already gone): the row alone goes.
          Effect.catchTag("NotFound", () => Effect.void),
          Effect.catchTag("AlreadyExists", (error) => Effect.die(error)),
          Effect.catchTag("Invalid", (error) => Effect.die(error))
        )
        // Files go once the deletion has committed: the caller's transaction (the deletion's webhook
        // deliveries) may still roll it back, and a row must never outlive its files. The tombstone's
        // erasure is the mark's from the commit on, so a process that dies first leaves it to a settle.
        yield* diskStepInTransaction(
          location,
          toTombstone,
          [{ _tag: "Move", from: tombstone, to: location }],
          [{ _tag: "Remove", location: tombstone }]
        )((onDisk) => Effect.andThen(store.remove(repository.id), onDisk))
        yield* transactions.afterCommit(Effect.gen(function*() {
          yield* Effect.forEach(cleanups, (cleanup) => cleanup, { discard: true })
          yield* forgetArchives(repository)
        }))
      })

    const transferDeps = {
      store,
      redirects,
      git,
      directories,
      users,
      teams,
      diskStepInTransaction,
      settleDirectory: steps.settle,
      now: nowSeconds,
      repositorySettings: Effect.service(RepositorySettings)
    }
    const forks = makeForks(transferDeps)
    const migrations = makeMigrations(transferDeps)
    /** Fork and migration answers show the new repository as its owner sees it (Forgejo: owner/admin level). */
    const asOwner = (repository: Repository, owner: User) =>
      Effect.map(parentsOf([{ repository, owner }]), (parents): AccessibleRepository => ({
        repository,
        owner,
        access: accessWith(Option.some(owner), { repository, owner }, noFacts),
        parent: parents.get(repository.forkId)
      }))

    const collaborationGate = (doer: User, target: AccessibleRepository) =>
      doer.isAdmin ? Effect.void : requireAdmin(target)

    return Repositories.of({
      accessible,
      accessibleById: (viewer, id) =>
        Effect.flatMap(store.findById(id), (found) =>
          Option.isSome(found)
            ? reveal(viewer, found.value, found.value.owner.name, found.value.repository.name)
            : Effect.fail(new NotFound({ message: `repository does not exist [id: ${id}, uid: 0, owner_name: , name: ]` }))),
      withAccess,
      organization: (viewer, name, checkVisibility) =>
        Effect.gen(function*() {
          const found = yield* users.findByName(name)
          if (Option.isNone(found) || found.value.kind !== "organization") {
            return yield* new NotFound({ message: orgNotFoundMessage(name) })
          }
          const organization = found.value
          if (!checkVisibility) return organization
          const isMember = Option.isSome(viewer) ? yield* teams.isOrgMember(organization.id, viewer.value.id) : false
          if (!canSeeAccount(viewer, organization, isMember)) return yield* new NotFound({ message: ORG_HIDDEN_MESSAGE })
          return organization
        }),
      create,
      edit,
      remove,
      listForOwner: (viewer, owner, includePrivate, page) =>
        Effect.gen(function*() {
          // The search applies the viewer's access in SQL, so that the page is full and its total
          // (X-Total-Count) counts only what the viewer may see.
          const result = yield* store.search(ownedBySearch(viewer, owner, includePrivate, page))
          return { items: yield* withAccess(viewer, result.items), total: result.total }
        }),
      search: (viewer, query) =>
        Effect.gen(function*() {
          const result = yield* store.search(query)
          return { items: yield* withAccess(viewer, result.items), total: result.total }
        }),
      collaborators: (target, page) => store.listCollaborators(target.repository.id, page),
      isCollaborator: (target, user) => Effect.map(store.collaboration(target.repository.id, user.id), Option.isSome),
      addCollaborator: (doer, target, user, permission) =>
        Effect.gen(function*() {
          yield* collaborationGate(doer, target)
          if (!user.active) return yield* new Conflict({ message: INACTIVE_COLLABORATOR_MESSAGE })
          yield* store.addCollaborator(target.repository.id, user.id, "write")
          const mode = permission === undefined ? "none" : parseAccessMode(permission)
          if (mode !== "none") yield* store.setCollaboration(target.repository.id, user.id, mode)
        }),
      removeCollaborator: (doer, target, user) =>
        Effect.andThen(collaborationGate(doer, target), store.removeCollaborator(target.repository.id, user.id)),
      permissionOf: (doer, target, user) =>
        Effect.gen(function*() {
          if (!doer.isAdmin && doer.id !== user.id && !atLeast(target.access.mode, "admin")) {
            return yield* new Forbidden({ message: PERMISSION_QUERY_MESSAGE })
          }
          return (yield* accessOf(Option.some(user), target)).mode
        }),
      recordPush: (repositoryId, pushedBranches, known) =>
        Effect.gen(function*() {
          let measured: { readonly at: string; readonly size: number } | undefined
          if (known !== undefined && pushedBranches !== undefined && known.repository.id === repositoryId) {
            // Measured where the push found it: gone from there (renamed meanwhile), the row is read below.
            const size = yield* Effect.option(git.sizeInBytes(locationOf(known)))
            if (Option.isSome(size)) {
              const updated = yield* store.updateAfterPush(
                repositoryId,
                { owner: known.owner.name, name: known.repository.name },
                pushedBranches,
                { size: size.value, isEmpty: pushedBranches.length === 0, updatedAt: yield* nowSeconds }
              )
              if (Option.isSome(updated)) return updated.value
              measured = { at: `${known.owner.name}/${known.repository.name}`, size: size.value }
            }
          }
          const found = yield* store.findById(repositoryId)
          if (Option.isNone(found)) return yield* new NotFound({ message: `repository does not exist [id: ${repositoryId}]` })
          const { repository } = found.value
          const location = locationOf(found.value)
          const missing = (error: NotFound | Invalid) => Effect.die(error)
          const size = measured?.at === `${location.owner}/${location.name}`
            ? measured.size
            : yield* git.sizeInBytes(location).pipe(Effect.catch(missing))
          const branches = pushedBranches ?? (yield* git.branchNames(location).pipe(Effect.catch(missing)))
          const changes: { -readonly [K in keyof RepositoryChanges]: RepositoryChanges[K] } = {
            size,
            isEmpty: branches.length === 0,
            updatedAt: yield* nowSeconds
          }
          const first = branches[0]
          if (repository.isEmpty && first !== undefined && !branches.includes(repository.defaultBranch)) {
            yield* git.setDefaultBranch(location, first).pipe(Effect.catch((error) =>
              error._tag === "GitStorageFailure" ? Effect.fail(error) : Effect.die(error)))
            changes.defaultBranch = first
          }
          return yield* store.update(repository.id, changes).pipe(Effect.orDie)
        }),
      fork: (doer, base, input) =>
        Effect.flatMap(forks.fork(doer, base, input), ({ fork, owner }) => asOwner(fork, owner)),
      listForks: (viewer, base) =>
        Effect.gen(function*() {
          const items = yield* withAccess(viewer, yield* store.listForks(base.repository.id))
          const siteAdmin = Option.isSome(viewer) && viewer.value.isAdmin
          return items.filter((item) => siteAdmin || item.access.hasAccess)
        }),
      migrate: (doer, input) =>
        Effect.flatMap(migrations.migrate(doer, input), ({ repository, owner }) => asOwner(repository, owner)),
      ownershipGuard: (owner) =>
        Effect.map(store.countForOwner(owner.id), (count) => count > 0 ? Option.some(ownsRepositoriesMessage(owner.id)) : Option.none())
    })
  })
)
