/** The port through which releases and their attachments are stored. Tag names are unique per repository, case-insensitively. */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { Attachment, NewAttachment, NewRelease, Release, ReleaseChanges, ReleaseDetails } from "./Release.ts"

/** Forgejo's `FindReleasesOptions` as the list endpoint uses them. */
export interface ReleaseFilter {
  readonly includeDrafts: boolean
  readonly isDraft?: boolean | undefined
  readonly isPrerelease?: boolean | undefined
  /** Matched case-insensitively against the tag name, title and note; empty matches all. */
  readonly keyword: string
}

export class ReleaseStore extends Context.Service<ReleaseStore, {
  /** AlreadyExists when the repository has a release for that tag (case-insensitive). */
  readonly insert: (release: NewRelease) => Effect.Effect<Release, AlreadyExists>
  readonly find: (repoId: number, id: number) => Effect.Effect<Option.Option<Release>>
  readonly findByTag: (repoId: number, tagName: string) => Effect.Effect<Option.Option<Release>>
  /** AlreadyExists when the tag is renamed onto another release's tag. */
  readonly update: (id: number, changes: ReleaseChanges) => Effect.Effect<Release, AlreadyExists>
  /** Removes the release with its attachment rows; returns those attachments (their files are the caller's). */
  readonly remove: (id: number) => Effect.Effect<ReadonlyArray<Attachment>>
  /** Newest first (created, then id); `total` counts the whole filtered set. */
  readonly list: (repoId: number, filter: ReleaseFilter, page: PageRequest) => Effect.Effect<Page<Release>>
  /** Each release with its publisher and its attachments by name, in the order given. */
  readonly details: (releases: ReadonlyArray<Release>) => Effect.Effect<ReadonlyArray<ReleaseDetails>>

  /** Stores the attachment with a new UUID. */
  readonly insertAttachment: (attachment: NewAttachment) => Effect.Effect<Attachment>
  readonly findAttachment: (id: number) => Effect.Effect<Option.Option<Attachment>>
  readonly findAttachmentByUuid: (uuid: string) => Effect.Effect<Option.Option<Attachment>>
  /** The release's attachments of that name, oldest first. */
  readonly findAttachmentsByName: (releaseId: number, name: string) => Effect.Effect<ReadonlyArray<Attachment>>
  readonly updateAttachment: (id: number, changes: { readonly name: string; readonly externalUrl: string }) => Effect.Effect<Attachment>
  readonly removeAttachment: (id: number) => Effect.Effect<void>
  /** The uuids of a repository's uploaded (not external) attachments: their files on disk. */
  readonly storedAttachmentsOf: (repoId: number) => Effect.Effect<ReadonlyArray<string>>
  readonly countDownload: (id: number) => Effect.Effect<void>
}>()("@kiln/domain/release/ReleaseStore") {}
