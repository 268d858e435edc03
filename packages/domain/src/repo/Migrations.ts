/**
 * `POST /repos/migrate` (api-facts §4.12; routers/api/v1/repo/migrate.go): a new repository filled
 * by cloning every branch and tag of a remote. Only plain git data is migrated here (issues, releases
 * and wiki are not; LFS objects are fetched after the clone by the HTTP handler, lfs/LfsMigration.ts). Checks run in Forgejo's order: owner, permission, clone address and host
 * policy, name; the clone then runs into a staging directory, so a failure leaves no row and no files.
 */
import { Effect, Option } from "effect"
import { AlreadyExists, Forbidden, Invalid } from "../errors.ts"
import type { GitStorageFailure } from "../git/GitStorageFailure.ts"
import { GitTransfers, type TransferFailure } from "../git/GitTransfers.ts"
import { isOwnerTeam } from "../org/Team.ts"
import type { User } from "../user/User.ts"
import { adoptStaged, type ForkDeps, refuseLeftFiles } from "./Forks.ts"
import { isHostAllowed, MigrationSettings } from "./MigrationHostPolicy.ts"
import {
  cloneCredentials,
  DISALLOWED_HOST_MESSAGE,
  INVALID_LOCAL_PATH_MESSAGE,
  LOCAL_IMPORT_MESSAGE,
  parseCloneAddress
} from "./MigrationSource.ts"
import { newRepository, type Repository, REPOSITORY_EXISTS_MESSAGE } from "./Repository.ts"
import { bindRepositoryName, checkUsableRepositoryName } from "./RepositoryName.ts"

/** MigrateRepoOptions (the fields Kiln acts on). */
export interface MigrateInput {
  readonly cloneAddr: string
  readonly repoName: string
  readonly repoOwner?: string | undefined
  /** Legacy owner id (`uid`); `repoOwner` wins. */
  readonly uid?: number | undefined
  readonly authUsername?: string | undefined
  readonly authPassword?: string | undefined
  readonly authToken?: string | undefined
  readonly mirror?: boolean | undefined
  readonly private?: boolean | undefined
  readonly description?: string | undefined
}

export const NOT_AN_ORGANIZATION_MESSAGE = "Given user is not an organization."
export const NOT_ORGANIZATION_OWNER_MESSAGE = "Given user is not owner of organization."

export type MigrationFailure = Invalid | Forbidden | AlreadyExists | TransferFailure | GitStorageFailure

export interface MigrationDeps extends ForkDeps {
  /** The instance's default branch (for an empty remote) and FORCE_PRIVATE. */
  readonly repositorySettings: Effect.Effect<{ readonly defaultBranch: string; readonly forcePrivate: boolean }>
}

export const makeMigrations = (deps: MigrationDeps) => {
  const { store, users, teams } = deps

  const ownerOf = (doer: User, input: MigrateInput) =>
    Effect.gen(function*() {
      if (input.repoOwner !== undefined && input.repoOwner !== "") {
        const found = yield* users.findByName(input.repoOwner)
        if (Option.isNone(found)) return yield* new Invalid({ message: `user does not exist [uid: 0, name: ${input.repoOwner}]` })
        return found.value
      }
      if (input.uid !== undefined && input.uid !== 0) {
        const found = yield* users.findById(input.uid)
        if (Option.isNone(found)) return yield* new Invalid({ message: `user does not exist [uid: ${input.uid}, name: ]` })
        return found.value
      }
      return doer
    })

  /**
   * Errors in order: Invalid binding `[RepoName]: ...`, `[CloneAddr]: Required`, `[Description]:
   * MaxSize`, unknown owner (422); Forbidden `Given user is not an organization.` / `Given user is
   * not owner of organization.` (403); Invalid clone address, local path or disallowed host (422);
   * Invalid unusable name (422); AlreadyExists (409); TransferFailure (422).
   */
  const migrate = (doer: User, input: MigrateInput): Effect.Effect<{ readonly repository: Repository; readonly owner: User }, MigrationFailure, GitTransfers> =>
    Effect.scoped(Effect.gen(function*() {
      yield* bindRepositoryName(input.repoName, "RepoName")
      if (input.cloneAddr.trim() === "") return yield* new Invalid({ field: "CloneAddr", message: "[CloneAddr]: Required" })
      if (input.description !== undefined && [...input.description].length > 2048) {
        return yield* new Invalid({ field: "Description", message: "[Description]: MaxSize" })
      }
      const owner = yield* ownerOf(doer, input)
      if (!doer.isAdmin) {
        if (owner.kind !== "organization" && owner.id !== doer.id) return yield* new Forbidden({ message: NOT_AN_ORGANIZATION_MESSAGE })
        if (owner.kind === "organization") {
          const memberships = yield* teams.listForMember(owner.id, doer.id)
          if (!memberships.some(isOwnerTeam)) return yield* new Forbidden({ message: NOT_ORGANIZATION_OWNER_MESSAGE })
        }
      }

      const settings = yield* MigrationSettings
      const transfers = yield* GitTransfers
      const address = parseCloneAddress(input.cloneAddr)
      if (address instanceof Invalid) return yield* address
      let addresses: ReadonlyArray<string> = []
      // Also what `original_url` shows: the address without any credentials.
      let url: string
      if (address.kind === "local") {
        if (!settings.allowLocalPaths || !doer.isAdmin) return yield* new Invalid({ message: LOCAL_IMPORT_MESSAGE })
        if (!address.path.startsWith("/") || !(yield* transfers.isDirectory(address.path))) {
          return yield* new Invalid({ message: INVALID_LOCAL_PATH_MESSAGE })
        }
        url = address.path
      } else {
        addresses = yield* transfers.resolveHost(address.host)
        if (!isHostAllowed(settings, address.host, addresses)) return yield* new Invalid({ message: DISALLOWED_HOST_MESSAGE })
        url = address.url
      }

      yield* checkUsableRepositoryName(input.repoName)
      if (Option.isSome(yield* store.find(owner.name, input.repoName))) {
        return yield* new AlreadyExists({ message: REPOSITORY_EXISTS_MESSAGE })
      }
      yield* refuseLeftFiles(deps, { owner: owner.name, name: input.repoName })
      const credentials = cloneCredentials(input)
      const mirror = input.mirror ?? false
      const staged = yield* transfers.cloneRemote({
        url,
        credentials: Option.fromUndefinedOr(credentials),
        addresses,
        mirror
      })
      const repositorySettings = yield* deps.repositorySettings
      const now = yield* deps.now
      const repository = yield* adoptStaged(deps, owner, newRepository({
        ownerId: owner.id,
        name: input.repoName,
        description: input.description ?? "",
        defaultBranch: Option.getOrElse(staged.head, () => repositorySettings.defaultBranch),
        wikiBranch: repositorySettings.defaultBranch,
        isPrivate: (input.private ?? false) || repositorySettings.forcePrivate,
        isEmpty: true,
        isMirror: mirror,
        originalUrl: url
      }, now), staged)
      return { repository, owner }
    }))

  return { migrate }
}
