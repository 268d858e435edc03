/**
 * The generic package registry (`/api/packages/{owner}/generic/...`) and the package list of
 * `/api/v1/packages/{owner}` [routers/api/packages/generic/generic.go, routers/api/v1/packages].
 * Reading needs read access to the owner's packages, changes need write (see PackageAccess);
 * site admins may do everything.
 *
 * Uploads are received into a staging file outside any transaction; the rows and the placing of
 * the content-addressed blob then happen in one transaction, so a failed or interrupted upload
 * leaves neither. Deletions move a blob that lost its last file aside inside the transaction and
 * erase it after the commit; the blob's row stays locked meanwhile, so a concurrent upload of the
 * same content waits and then places its own copy.
 */
import { Clock, Context, Effect, Exit, Layer, Option, Ref, type Stream } from "effect"
import { type AlreadyExists, Forbidden, Invalid, NotFound } from "../errors.ts"
import { type AccessMode, atLeast } from "../org/AccessMode.ts"
import { TeamStore } from "../org/TeamStore.ts"
import type { Page, PageRequest } from "../Paging.ts"
import { Transactions } from "../repo/Transactions.ts"
import {
  type BlobContent,
  BlobStorage,
  type BlobStorageFailure,
  type BlobTooLarge,
  type DetachedBlob,
  packageBlobKey
} from "../release/BlobStorage.ts"
import type { User } from "../user/User.ts"
import {
  INVALID_FILE_NAME_MESSAGE,
  INVALID_PACKAGE_NAME_MESSAGE,
  INVALID_VERSION_MESSAGE,
  isValidFileName,
  isValidPackageName,
  isValidVersion
} from "./GenericPackageNames.ts"
import {
  PACKAGE_FILE_NOT_FOUND_MESSAGE,
  type PackageCoordinates,
  type PackageFile,
  type PackageType,
  type PackageVersion,
  ownsPackagesMessage
} from "./Package.ts"
import { packageAccess } from "./PackageAccess.ts"
import { type PackageListFilter, PackageStore } from "./PackageStore.ts"

export const PACKAGE_ACCESS_MESSAGE = "user should have specific permission or be a site admin"

/** A file of a generic package version, by the names in its path. */
export interface GenericFilePath {
  readonly name: string
  readonly version: string
  readonly fileName: string
}

export class Packages extends Context.Service<Packages, {
  /** The caller's level on the owner's packages (site admins: owner). */
  readonly access: (viewer: Option.Option<User>, owner: User) => Effect.Effect<AccessMode>
  /**
   * Forbidden without write access; Invalid `invalid package name`, `invalid filename`, `invalid
   * package version` (400); AlreadyExists `package file already exists` (409); BlobTooLarge past `maxSize`.
   */
  readonly upload: <E>(
    doer: Option.Option<User>,
    owner: User,
    path: GenericFilePath,
    content: Stream.Stream<Uint8Array, E>,
    maxSize: number
  ) => Effect.Effect<PackageFile, E | Forbidden | Invalid | AlreadyExists | BlobTooLarge | BlobStorageFailure>
  /** Forbidden without read access; NotFound `package does not exist` / `package file does not exist`. Counts the download. */
  readonly download: (
    viewer: Option.Option<User>,
    owner: User,
    path: GenericFilePath
  ) => Effect.Effect<{ readonly file: PackageFile; readonly content: BlobContent }, Forbidden | NotFound>
  /** Forbidden without write access; the version goes with its last file. */
  readonly removeFile: (
    doer: Option.Option<User>,
    owner: User,
    path: GenericFilePath
  ) => Effect.Effect<void, Forbidden | NotFound | BlobStorageFailure>
  readonly removeVersion: (
    doer: Option.Option<User>,
    owner: User,
    name: string,
    version: string
  ) => Effect.Effect<void, Forbidden | NotFound | BlobStorageFailure>
  /**
   * For the account deletion guards: an owner of packages (user or organization) is not deleted
   * unless purged (`user still has ownership of packages [uid: N]`).
   */
  readonly ownershipGuard: (owner: User) => Effect.Effect<Option.Option<string>>
  /**
   * A purged account's packages: their rows go in one transaction, and the blobs no other owner's
   * file shares are erased once it has committed. No access check: the caller deletes the account.
   */
  readonly removeAllOf: (owner: User) => Effect.Effect<void, BlobStorageFailure>
  /** Forbidden without read access. */
  readonly list: (
    viewer: Option.Option<User>,
    owner: User,
    filter: PackageListFilter,
    page: PageRequest
  ) => Effect.Effect<Page<PackageVersion>, Forbidden>
}>()("@kiln/domain/package/Packages") {}

const GENERIC: PackageType = "generic"

export const layer: Layer.Layer<Packages, never, PackageStore | BlobStorage | Transactions | TeamStore> = Layer.effect(
  Packages,
  Effect.gen(function*() {
    const store = yield* PackageStore
    const blobs = yield* BlobStorage
    const transactions = yield* Transactions
    const teams = yield* TeamStore

    const access = (viewer: Option.Option<User>, owner: User) =>
      Effect.gen(function*() {
        if (Option.isSome(viewer) && viewer.value.isAdmin) return "owner" as const
        const inOrganization = Option.isSome(viewer) && owner.kind === "organization"
        return packageAccess({
          caller: viewer,
          owner,
          teams: inOrganization ? yield* teams.listForMember(owner.id, viewer.value.id) : [],
          isOrgMember: inOrganization ? yield* teams.isOrgMember(owner.id, viewer.value.id) : false
        })
      })

    const require = (viewer: Option.Option<User>, owner: User, level: AccessMode) =>
      Effect.flatMap(access(viewer, owner), (mode) =>
        atLeast(mode, level) ? Effect.void : Effect.fail(new Forbidden({ message: PACKAGE_ACCESS_MESSAGE })))

    const coordinates = (owner: User, name: string, version: string): PackageCoordinates => ({
      ownerId: owner.id,
      type: GENERIC,
      name,
      version
    })

    /** Removes rows and moves orphaned blobs aside in one transaction; erases them after the commit. */
    const withDetachedBlobs = <E>(remove: Effect.Effect<ReadonlyArray<string>, E>) =>
      Effect.gen(function*() {
        const detached = yield* Ref.make<ReadonlyArray<DetachedBlob>>([])
        yield* transactions.run(Effect.gen(function*() {
          for (const sha256 of yield* remove) {
            const aside = yield* blobs.detach(packageBlobKey(sha256))
            yield* Ref.update(detached, (all) => [...all, aside])
          }
        })).pipe(
          Effect.onExit((exit) =>
            Effect.flatMap(Ref.get(detached), (all) =>
              Effect.forEach(all, (aside) =>
                Exit.isSuccess(exit)
                  ? aside.purge
                  : aside.restore.pipe(Effect.catchCause((cause) => Effect.logError("a package blob could not be put back", cause))), { discard: true })))
        )
      })

    return Packages.of({
      access,

      upload: (doer, owner, path, content, maxSize) =>
        Effect.scoped(Effect.gen(function*() {
          yield* require(doer, owner, "write")
          if (Option.isNone(doer)) return yield* new Forbidden({ message: PACKAGE_ACCESS_MESSAGE })
          if (!isValidPackageName(path.name)) return yield* new Invalid({ message: INVALID_PACKAGE_NAME_MESSAGE })
          if (!isValidFileName(path.fileName)) return yield* new Invalid({ message: INVALID_FILE_NAME_MESSAGE })
          if (!isValidVersion(path.version)) return yield* new Invalid({ message: INVALID_VERSION_MESSAGE })
          const staged = yield* blobs.receive(content, maxSize)
          const createdAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          const placedNew = yield* Ref.make(false)
          const key = packageBlobKey(staged.digests.sha256)
          return yield* transactions.run(Effect.gen(function*() {
            const added = yield* store.addFile({
              ownerId: owner.id,
              creatorId: doer.value.id,
              type: GENERIC,
              name: path.name,
              version: path.version,
              fileName: path.fileName,
              blob: { size: staged.size, digests: staged.digests },
              createdAt
            })
            // Placed again even when known: the same content under the same key, and a lost file heals.
            yield* blobs.place(staged, key)
            yield* Ref.set(placedNew, added.newBlob)
            return added.file
          })).pipe(
            Effect.onExit((exit) =>
              Exit.isSuccess(exit) ? Effect.void : Effect.flatMap(Ref.get(placedNew), (placed) =>
                placed
                  ? blobs.detach(key).pipe(
                    Effect.flatMap((aside) => aside.purge),
                    Effect.catchCause((cause) => Effect.logError("an upload failed after its blob was placed; the blob remains", cause))
                  )
                  : Effect.void))
          )
        })),

      download: (viewer, owner, path) =>
        Effect.gen(function*() {
          yield* require(viewer, owner, "read")
          const found = yield* store.findFile(coordinates(owner, path.name, path.version), path.fileName)
          if (Option.isNone(found)) return yield* new NotFound({ message: PACKAGE_FILE_NOT_FOUND_MESSAGE })
          const content = yield* blobs.read(packageBlobKey(found.value.blob.digests.sha256))
          yield* store.countDownload(found.value.versionId)
          return { file: found.value, content }
        }),

      removeFile: (doer, owner, path) =>
        Effect.andThen(
          require(doer, owner, "write"),
          withDetachedBlobs(Effect.map(
            store.removeFile(coordinates(owner, path.name, path.version), path.fileName),
            (orphan) => Option.toArray(orphan)
          ))
        ),

      removeVersion: (doer, owner, name, version) =>
        Effect.andThen(require(doer, owner, "write"), withDetachedBlobs(store.removeVersion(coordinates(owner, name, version)))),

      ownershipGuard: (owner) =>
        Effect.map(store.ownsPackages(owner.id), (owns) => owns ? Option.some(ownsPackagesMessage(owner.id)) : Option.none()),

      removeAllOf: (owner) => withDetachedBlobs(store.removeAllOf(owner.id)),

      list: (viewer, owner, filter, page) =>
        Effect.andThen(require(viewer, owner, "read"), store.listVersions(owner.id, filter, page))
    })
  })
)
