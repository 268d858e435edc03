/**
 * Releases and release attachments (api-facts §8.5) [routers/api/v1/repo/release.go,
 * release_attachment.go, services/release/release.go]. Reading needs read access to the releases
 * unit (or repository admin); changes need write on it.
 *
 * Files and rows change together: an upload is received into a staging file first (outside any
 * transaction, however long it takes), then its row is inserted and the file placed inside one
 * transaction; when the transaction fails, the commit included, the placed file goes again. A
 * deletion moves the files aside inside the transaction, erases them after the commit and puts
 * them back after a rollback.
 */
import { Clock, Context, Effect, Exit, Layer, Option, Ref, Schema, type Stream } from "effect"
import { PUBLIC_ONLY_REPO_MESSAGE } from "../auth/AccessTokenScope.ts"
import { checkMaxSize, isLongerThan, STORED_NAME_MAX_LENGTH } from "../binding/MaxSize.ts"
import { Conflict, Forbidden, Invalid, NotFound } from "../errors.ts"
import { GitStorage, type RepositoryLocation } from "../git/GitStorage.ts"
import type { GitStorageFailure } from "../git/GitStorageFailure.ts"
import { GitTags } from "../git/GitTags.ts"
import { isValidRefName } from "../git/RefName.ts"
import { atLeast } from "../org/AccessMode.ts"
import { isValidHttpUrl } from "../org/HttpUrl.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { AccessibleRepository } from "../repo/Repositories.ts"
import { isPublicRepository, Repositories } from "../repo/Repositories.ts"
import { Transactions } from "../repo/Transactions.ts"
import type { User } from "../user/User.ts"
import {
  attachmentKey,
  type BlobContent,
  BlobStorage,
  type BlobStorageFailure,
  type BlobTooLarge,
  type DetachedBlob
} from "./BlobStorage.ts"
import {
  type Attachment,
  attachmentNotFoundMessage,
  invalidExternalUrlMessage,
  invalidTagNameMessage,
  NOT_EXTERNAL_MESSAGE,
  READ_RELEASES_MESSAGE,
  type Release,
  RELEASE_HAS_NO_TAG_MESSAGE,
  type ReleaseChanges,
  type ReleaseDetails,
  releaseExistsMessage,
  releaseNotFoundMessage,
  REPO_IS_EMPTY_MESSAGE,
  truncateTitle,
  unknownTargetMessage,
  WRITE_RELEASES_MESSAGE
} from "./Release.ts"
import { ReleaseStore } from "./ReleaseStore.ts"

/** The target of a new release (branch, tag or commit) does not exist: Forgejo's 404 with the error text. */
export class UnknownTarget extends Schema.TaggedError<UnknownTarget>()("UnknownTarget", {
  message: Schema.String
}) {}

/** CreateReleaseOption. */
export interface CreateReleaseInput {
  readonly tagName: string
  readonly target?: string | undefined
  readonly title?: string | undefined
  readonly note?: string | undefined
  readonly isDraft?: boolean | undefined
  readonly isPrerelease?: boolean | undefined
  readonly hideArchiveLinks?: boolean | undefined
}

/** EditReleaseOption: empty strings and absent fields keep the value. */
export interface EditReleaseInput {
  readonly tagName?: string | undefined
  readonly target?: string | undefined
  readonly title?: string | undefined
  readonly note?: string | undefined
  readonly isDraft?: boolean | undefined
  readonly isPrerelease?: boolean | undefined
  readonly hideArchiveLinks?: boolean | undefined
}

export interface ListReleasesInput {
  readonly isDraft?: boolean | undefined
  readonly isPrerelease?: boolean | undefined
  readonly keyword: string
  readonly page: PageRequest
}

/** EditAttachmentOptions: empty strings keep the value. */
export interface EditAttachmentInput {
  readonly name?: string | undefined
  readonly downloadUrl?: string | undefined
}

/** What a download serves: the stored file, or the address of an external attachment. */
export type AttachmentDownload =
  | { readonly _tag: "File"; readonly attachment: Attachment; readonly content: BlobContent }
  | { readonly _tag: "External"; readonly attachment: Attachment; readonly url: string }

export type ReleaseFailure = Forbidden | NotFound | Invalid | Conflict | UnknownTarget | GitStorageFailure

export class Releases extends Context.Service<Releases, {
  /** Drafts only for callers with write access; Forbidden without read access. */
  readonly list: (target: AccessibleRepository, input: ListReleasesInput) => Effect.Effect<Page<ReleaseDetails>, Forbidden>
  readonly get: (target: AccessibleRepository, id: number) => Effect.Effect<ReleaseDetails, Forbidden | NotFound>
  readonly getByTag: (target: AccessibleRepository, tagName: string) => Effect.Effect<ReleaseDetails, Forbidden | NotFound>
  /**
   * Errors in Forgejo's order: Forbidden (403), Invalid `[TagName]: Required` and `repo is empty` (422),
   * Conflict `Release has no Tag` when the tag has a release (409), then for a published release whose
   * tag is missing: Invalid for a tag name git refuses (422), UnknownTarget (404).
   */
  readonly create: (doer: User, target: AccessibleRepository, input: CreateReleaseInput) => Effect.Effect<ReleaseDetails, ReleaseFailure>
  /** As create; publishing a draft (or renaming the tag of a published release) creates the missing tag. */
  readonly edit: (
    doer: User,
    target: AccessibleRepository,
    id: number,
    input: EditReleaseInput
  ) => Effect.Effect<ReleaseDetails, ReleaseFailure>
  /** Deletes the release and its attachments; the tag stays (Forgejo's API deletes no tag). */
  readonly remove: (doer: User, target: AccessibleRepository, id: number) => Effect.Effect<void, Forbidden | NotFound | BlobStorageFailure>
  /** The release (with its attachments) whose attachments are asked for. */
  readonly attachments: (target: AccessibleRepository, releaseId: number) => Effect.Effect<ReleaseDetails, Forbidden | NotFound>
  readonly attachment: (
    target: AccessibleRepository,
    releaseId: number,
    attachmentId: number
  ) => Effect.Effect<Attachment, Forbidden | NotFound>
  /**
   * Checks the caller, the release and the name (Invalid `[Name]: MaxSize` past 255 characters)
   * before the body is read; nothing remains when the upload fails.
   */
  readonly upload: <E>(
    doer: User,
    target: AccessibleRepository,
    releaseId: number,
    name: string,
    content: Stream.Stream<Uint8Array, E>,
    maxSize: number
  ) => Effect.Effect<Attachment, E | Forbidden | NotFound | Invalid | BlobTooLarge | BlobStorageFailure>
  /**
   * An attachment that only links elsewhere (http or https): Invalid `invalid external URL: '...'`
   * (400), `[Name]: MaxSize` (422).
   */
  readonly addExternal: (
    doer: User,
    target: AccessibleRepository,
    releaseId: number,
    name: string,
    url: string
  ) => Effect.Effect<Attachment, Forbidden | NotFound | Invalid>
  /**
   * Invalid `[Name]: MaxSize` (422); `existing attachment is not external` when a URL is given for a
   * stored file (400).
   */
  readonly editAttachment: (
    doer: User,
    target: AccessibleRepository,
    releaseId: number,
    attachmentId: number,
    input: EditAttachmentInput
  ) => Effect.Effect<Attachment, Forbidden | NotFound | Invalid>
  readonly removeAttachment: (
    doer: User,
    target: AccessibleRepository,
    releaseId: number,
    attachmentId: number
  ) => Effect.Effect<void, Forbidden | NotFound | BlobStorageFailure>
  /**
   * `GET /attachments/{uuid}`: NotFound unless the viewer may read the releases of its repository;
   * Forbidden when the caller's token is public-only and the repository is not public. Counts the download.
   */
  readonly download: (
    viewer: Option.Option<User>,
    uuid: string,
    publicOnly: boolean
  ) => Effect.Effect<AttachmentDownload, NotFound | Forbidden>
  /** `GET /{owner}/{repo}/releases/download/{tag}/{name}`: as `download`, by the release's tag and the file's name. */
  readonly downloadByName: (target: AccessibleRepository, tagName: string, name: string) => Effect.Effect<AttachmentDownload, NotFound>
}>()("@kiln/domain/release/Releases") {}

const canRead = (target: AccessibleRepository): boolean =>
  atLeast(target.access.units["repo.releases"], "read") || atLeast(target.access.mode, "admin")

export const canWriteReleases = (target: AccessibleRepository): boolean =>
  atLeast(target.access.units["repo.releases"], "write") || atLeast(target.access.mode, "admin")

const requireRead = (target: AccessibleRepository) =>
  canRead(target) ? Effect.void : Effect.fail(new Forbidden({ message: READ_RELEASES_MESSAGE }))

const requireWrite = (target: AccessibleRepository) =>
  Effect.andThen(
    requireRead(target),
    canWriteReleases(target) ? Effect.void : Effect.fail(new Forbidden({ message: WRITE_RELEASES_MESSAGE }))
  )

const locationOf = (target: AccessibleRepository): RepositoryLocation => ({ owner: target.owner.name, name: target.repository.name })

/**
 * A tag name longer than Forgejo's column (255 characters) is not valid: its components may each
 * pass git's rules while the whole is past what a file path or an index holds.
 */
const checkTagLength = (tagName: string): Effect.Effect<void, Invalid> =>
  isLongerThan(tagName, STORED_NAME_MAX_LENGTH) ? Effect.fail(new Invalid({ message: invalidTagNameMessage(tagName) })) : Effect.void

const nowSeconds = Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000))


export const layer: Layer.Layer<
  Releases,
  never,
  ReleaseStore | BlobStorage | GitStorage | GitTags | Transactions | Repositories
> = Layer.effect(
  Releases,
  Effect.gen(function*() {
    const store = yield* ReleaseStore
    const blobs = yield* BlobStorage
    const git = yield* GitStorage
    const tags = yield* GitTags
    const transactions = yield* Transactions
    const repositories = yield* Repositories

    const releaseMissing = (id: number) => new NotFound({ message: releaseNotFoundMessage(id, "") })

    const findRelease = (target: AccessibleRepository, id: number) =>
      Effect.flatMap(store.find(target.repository.id, id), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(releaseMissing(id)))

    /** A draft exists only for callers who may write the releases (Forgejo's 404 for everybody else). */
    const visibleTo = (target: AccessibleRepository, release: Release): boolean => !release.isDraft || canWriteReleases(target)

    /** As `findRelease`, with drafts hidden from readers. */
    const findVisibleRelease = (target: AccessibleRepository, id: number) =>
      Effect.flatMap(findRelease(target, id), (release) =>
        visibleTo(target, release) ? Effect.succeed(release) : Effect.fail(releaseMissing(id)))

    const detailsOf = (release: Release) =>
      Effect.map(store.details([release]), (all) => all[0] ?? { release, publisher: undefined, attachments: [] })

    const findAttachment = (releaseId: number, attachmentId: number) =>
      Effect.flatMap(store.findAttachment(attachmentId), (found) =>
        Option.isSome(found) && found.value.releaseId === releaseId
          ? Effect.succeed(found.value)
          : Effect.fail(new NotFound({ message: attachmentNotFoundMessage(attachmentId, "") })))

    /** The commit the tag points at, if the tag exists. */
    const tagCommit = (location: RepositoryLocation, tagName: string) =>
      git.resolveCommit(location, `refs/tags/${tagName}`).pipe(
        Effect.map((commit) => Option.some(commit.id)),
        Effect.catchTags({ NotFound: () => Effect.succeed(Option.none<string>()), Invalid: () => Effect.succeed(Option.none<string>()) })
      )

    /**
     * Forgejo's `createTag`: a published release gets its tag (made at its target when missing) and
     * the tagged commit; a draft keeps what it has. `created` tells whether a tag was made.
     */
    const ensureTag = (target: AccessibleRepository, release: Pick<Release, "tagName" | "target" | "isDraft">) =>
      Effect.gen(function*() {
        if (release.isDraft) return Option.none<{ readonly sha1: string; readonly created: boolean }>()
        const location = locationOf(target)
        const existing = yield* tagCommit(location, release.tagName)
        if (Option.isSome(existing)) return Option.some({ sha1: existing.value, created: false })
        if (!isValidRefName(release.tagName)) return yield* new Invalid({ message: invalidTagNameMessage(release.tagName) })
        const commit = yield* git.resolveCommit(location, release.target).pipe(
          Effect.catchTags({
            NotFound: () => Effect.fail(new UnknownTarget({ message: unknownTargetMessage(release.target) })),
            Invalid: () => Effect.fail(new UnknownTarget({ message: unknownTargetMessage(release.target) }))
          })
        )
        const created = yield* tags.createTag(location, release.tagName, commit.id).pipe(
          Effect.as(true),
          // Made meanwhile by someone else: it is there, which is what was asked.
          Effect.catchTag("AlreadyExists", () => Effect.succeed(false)),
          Effect.catchTag("NotFound", (error) => Effect.die(error))
        )
        const sha1 = created ? commit.id : Option.getOrElse(yield* tagCommit(location, release.tagName), () => commit.id)
        return Option.some({ sha1, created })
      })

    /** Inserts the row and places the file in one transaction; a failure after placing removes the file. */
    const withPlacedFile = <E>(insert: Effect.Effect<Attachment, E>, place: (attachment: Attachment) => Effect.Effect<void, BlobStorageFailure>) =>
      Effect.gen(function*() {
        const placed = yield* Ref.make(Option.none<Attachment>())
        return yield* transactions.run(Effect.gen(function*() {
          const attachment = yield* insert
          yield* place(attachment)
          yield* Ref.set(placed, Option.some(attachment))
          return attachment
        })).pipe(
          Effect.onExit((exit) =>
            Exit.isSuccess(exit) ? Effect.void : Effect.flatMap(Ref.get(placed), (attachment) =>
              Option.isNone(attachment) ? Effect.void : blobs.detach(attachmentKey(attachment.value.uuid)).pipe(
                Effect.flatMap((detached) => detached.purge),
                Effect.catchCause((cause) => Effect.logError("an upload failed after its file was placed; the file remains", cause))
              )))
        )
      })

    /** Deletes rows and moves their files aside in one transaction; files go for good after the commit. */
    const withDetachedFiles = <E>(remove: Effect.Effect<ReadonlyArray<Attachment>, E>) =>
      Effect.gen(function*() {
        const detached = yield* Ref.make<ReadonlyArray<DetachedBlob>>([])
        yield* transactions.run(Effect.gen(function*() {
          const removed = yield* remove
          for (const attachment of removed) {
            if (attachment.externalUrl !== "") continue
            const aside = yield* blobs.detach(attachmentKey(attachment.uuid))
            yield* Ref.update(detached, (all) => [...all, aside])
          }
        })).pipe(
          Effect.onExit((exit) =>
            Effect.flatMap(Ref.get(detached), (all) =>
              Effect.forEach(all, (aside) =>
                Exit.isSuccess(exit)
                  ? aside.purge
                  : aside.restore.pipe(Effect.catchCause((cause) => Effect.logError("a deleted file could not be put back", cause))), { discard: true })))
        )
      })

    const serve = (attachment: Attachment): Effect.Effect<AttachmentDownload, NotFound> =>
      attachment.externalUrl !== ""
        ? Effect.succeed({ _tag: "External", attachment, url: attachment.externalUrl })
        : Effect.gen(function*() {
          const content = yield* blobs.read(attachmentKey(attachment.uuid))
          yield* store.countDownload(attachment.id)
          return { _tag: "File", attachment, content } as const
        })

    /** The attachment's repository and release must be readable by the viewer; a draft's files only by its writers. */
    const inRepositoryOf = (attachment: Attachment, viewer: Option.Option<User>, publicOnly: boolean) =>
      Effect.gen(function*() {
        const target = yield* repositories.accessibleById(viewer, attachment.repoId)
        if (publicOnly && !isPublicRepository(target)) return yield* new Forbidden({ message: PUBLIC_ONLY_REPO_MESSAGE })
        if (!canRead(target)) return yield* new NotFound({ message: READ_RELEASES_MESSAGE })
        const release = yield* store.find(target.repository.id, attachment.releaseId)
        if (Option.isNone(release) || !visibleTo(target, release.value)) {
          return yield* new NotFound({ message: attachmentNotFoundMessage(0, attachment.uuid) })
        }
      })

    return Releases.of({
      list: (target, input) =>
        Effect.gen(function*() {
          yield* requireRead(target)
          const page = yield* store.list(target.repository.id, {
            includeDrafts: canWriteReleases(target),
            isDraft: input.isDraft,
            isPrerelease: input.isPrerelease,
            keyword: input.keyword
          }, input.page)
          return { items: yield* store.details(page.items), total: page.total }
        }),

      get: (target, id) => Effect.andThen(requireRead(target), Effect.flatMap(findVisibleRelease(target, id), detailsOf)),

      getByTag: (target, tagName) =>
        Effect.gen(function*() {
          yield* requireRead(target)
          const found = yield* store.findByTag(target.repository.id, tagName)
          if (Option.isNone(found) || !visibleTo(target, found.value)) {
            return yield* new NotFound({ message: releaseNotFoundMessage(0, tagName) })
          }
          return yield* detailsOf(found.value)
        }),

      create: (doer, target, input) =>
        Effect.gen(function*() {
          yield* requireWrite(target)
          if (input.tagName === "") return yield* new Invalid({ field: "tag_name", message: "[TagName]: Required" })
          yield* checkTagLength(input.tagName)
          if (target.repository.isEmpty) return yield* new Invalid({ message: REPO_IS_EMPTY_MESSAGE })
          if (Option.isSome(yield* store.findByTag(target.repository.id, input.tagName))) {
            return yield* new Conflict({ message: RELEASE_HAS_NO_TAG_MESSAGE })
          }
          const wanted = {
            tagName: input.tagName,
            target: input.target === undefined || input.target === "" ? target.repository.defaultBranch : input.target,
            isDraft: input.isDraft ?? false
          }
          const tag = yield* ensureTag(target, wanted)
          const release = yield* store.insert({
            ...wanted,
            repoId: target.repository.id,
            publisherId: doer.id,
            title: truncateTitle(input.title ?? ""),
            note: input.note ?? "",
            sha1: Option.match(tag, { onNone: () => "", onSome: ({ sha1 }) => sha1 }),
            isPrerelease: input.isPrerelease ?? false,
            hideArchiveLinks: input.hideArchiveLinks ?? false,
            createdAt: yield* nowSeconds
          }).pipe(Effect.mapError(() => new Conflict({ message: releaseExistsMessage(input.tagName) })))
          return yield* detailsOf(release)
        }),

      edit: (_doer, target, id, input) =>
        Effect.gen(function*() {
          yield* requireWrite(target)
          if (input.tagName !== undefined) yield* checkTagLength(input.tagName)
          const current = yield* findRelease(target, id)
          const nonEmpty = (value: string | undefined, fallback: string) => value === undefined || value === "" ? fallback : value
          const next = {
            tagName: nonEmpty(input.tagName, current.tagName),
            target: nonEmpty(input.target, current.target),
            isDraft: input.isDraft ?? current.isDraft
          }
          const tag = yield* ensureTag(target, next)
          const changes: ReleaseChanges = {
            ...next,
            title: truncateTitle(nonEmpty(input.title, current.title)),
            note: nonEmpty(input.note, current.note),
            isPrerelease: input.isPrerelease ?? current.isPrerelease,
            hideArchiveLinks: input.hideArchiveLinks ?? current.hideArchiveLinks,
            // Forgejo stamps drafts and newly tagged releases with the time of the edit.
            ...(Option.isNone(tag) || tag.value.created ? { createdAt: yield* nowSeconds } : {}),
            ...(Option.isSome(tag) ? { sha1: tag.value.sha1 } : {})
          }
          const updated = yield* store.update(current.id, changes).pipe(
            Effect.mapError(() => new Conflict({ message: releaseExistsMessage(next.tagName) }))
          )
          return yield* detailsOf(updated)
        }),

      remove: (_doer, target, id) =>
        Effect.gen(function*() {
          yield* requireWrite(target)
          const release = yield* findRelease(target, id)
          yield* withDetachedFiles(store.remove(release.id))
        }),

      attachments: (target, releaseId) =>
        Effect.andThen(requireRead(target), Effect.flatMap(findVisibleRelease(target, releaseId), detailsOf)),

      attachment: (target, releaseId, attachmentId) =>
        Effect.gen(function*() {
          yield* requireRead(target)
          yield* findVisibleRelease(target, releaseId)
          return yield* findAttachment(releaseId, attachmentId)
        }),

      upload: (doer, target, releaseId, name, content, maxSize) =>
        Effect.scoped(Effect.gen(function*() {
          yield* requireWrite(target)
          const release = yield* findRelease(target, releaseId)
          yield* checkMaxSize("Name", name, STORED_NAME_MAX_LENGTH)
          const staged = yield* blobs.receive(content, maxSize)
          const insert = Effect.flatMap(nowSeconds, (createdAt) =>
            store.insertAttachment({
              repoId: target.repository.id,
              releaseId: release.id,
              uploaderId: doer.id,
              name,
              size: staged.size,
              sha256: staged.digests.sha256,
              externalUrl: "",
              createdAt
            }))
          return yield* withPlacedFile(insert, (attachment) => blobs.place(staged, attachmentKey(attachment.uuid)))
        })),

      addExternal: (doer, target, releaseId, name, url) =>
        Effect.gen(function*() {
          yield* requireWrite(target)
          const release = yield* findRelease(target, releaseId)
          yield* checkMaxSize("Name", name, STORED_NAME_MAX_LENGTH)
          if (!isValidHttpUrl(url)) return yield* new Invalid({ message: invalidExternalUrlMessage(url) })
          return yield* store.insertAttachment({
            repoId: target.repository.id,
            releaseId: release.id,
            uploaderId: doer.id,
            name,
            size: 0,
            sha256: "",
            externalUrl: url,
            createdAt: yield* nowSeconds
          })
        }),

      editAttachment: (_doer, target, releaseId, attachmentId, input) =>
        Effect.gen(function*() {
          yield* requireWrite(target)
          yield* findRelease(target, releaseId)
          const attachment = yield* findAttachment(releaseId, attachmentId)
          yield* checkMaxSize("Name", input.name, STORED_NAME_MAX_LENGTH)
          const url = input.downloadUrl ?? ""
          if (url !== "") {
            if (attachment.externalUrl === "") return yield* new Invalid({ message: NOT_EXTERNAL_MESSAGE })
            if (!isValidHttpUrl(url)) return yield* new Invalid({ message: invalidExternalUrlMessage(url) })
          }
          return yield* store.updateAttachment(attachment.id, {
            name: input.name === undefined || input.name === "" ? attachment.name : input.name,
            externalUrl: url === "" ? attachment.externalUrl : url
          })
        }),

      removeAttachment: (_doer, target, releaseId, attachmentId) =>
        Effect.gen(function*() {
          yield* requireWrite(target)
          yield* findRelease(target, releaseId)
          const attachment = yield* findAttachment(releaseId, attachmentId)
          yield* withDetachedFiles(Effect.as(store.removeAttachment(attachment.id), [attachment]))
        }),

      download: (viewer, uuid, publicOnly) =>
        Effect.gen(function*() {
          const found = yield* store.findAttachmentByUuid(uuid)
          if (Option.isNone(found)) return yield* new NotFound({ message: attachmentNotFoundMessage(0, uuid) })
          yield* inRepositoryOf(found.value, viewer, publicOnly)
          return yield* serve(found.value)
        }),

      downloadByName: (target, tagName, name) =>
        Effect.gen(function*() {
          if (!canRead(target)) return yield* new NotFound({ message: READ_RELEASES_MESSAGE })
          const release = yield* store.findByTag(target.repository.id, tagName)
          if (Option.isNone(release) || !visibleTo(target, release.value)) {
            return yield* new NotFound({ message: releaseNotFoundMessage(0, tagName) })
          }
          const [first] = yield* store.findAttachmentsByName(release.value.id, name)
          if (first === undefined) return yield* new NotFound({ message: attachmentNotFoundMessage(0, "") })
          return yield* serve(first)
        })
    })
  })
)
