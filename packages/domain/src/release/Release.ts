/**
 * Releases and their attachments as Kiln keeps them [models/repo/release.go, attachment.go]. A
 * release names a tag; a published release has its tag in git (`sha1` is the tagged commit), a
 * draft may name a tag that does not exist yet (`sha1` empty). Attachments are files stored under
 * their UUID (see BlobStorage), or links to elsewhere (`externalUrl`).
 */
import type { User } from "../user/User.ts"

export interface Release {
  readonly id: number
  readonly repoId: number
  readonly publisherId: number
  readonly tagName: string
  /** The branch or commit the tag was (or will be) made at: Forgejo's `target_commitish`. */
  readonly target: string
  readonly title: string
  readonly note: string
  /** The tagged commit; empty for a draft whose tag does not exist. */
  readonly sha1: string
  readonly isDraft: boolean
  readonly isPrerelease: boolean
  readonly hideArchiveLinks: boolean
  /** Unix seconds. */
  readonly createdAt: number
}

export type NewRelease = Omit<Release, "id">

export type ReleaseChanges = Partial<
  Pick<Release, "tagName" | "target" | "title" | "note" | "sha1" | "isDraft" | "isPrerelease" | "hideArchiveLinks" | "createdAt">
>

export interface Attachment {
  readonly id: number
  readonly uuid: string
  readonly repoId: number
  readonly releaseId: number
  readonly uploaderId: number
  readonly name: string
  /** Bytes; 0 for an external attachment. */
  readonly size: number
  /** SHA-256 of the file (lower-case hex); empty for an external attachment. */
  readonly sha256: string
  readonly downloadCount: number
  /** Where an external attachment points; empty for a stored file. */
  readonly externalUrl: string
  /** Unix seconds. */
  readonly createdAt: number
}

export type NewAttachment = Omit<Attachment, "id" | "uuid" | "downloadCount">

/** A release with what its JSON shows: the publisher (none once the account is gone) and its attachments by name. */
export interface ReleaseDetails {
  readonly release: Release
  readonly publisher: User | undefined
  readonly attachments: ReadonlyArray<Attachment>
}

/** Forgejo truncates titles to 255 bytes of UTF-8 (`util.SplitStringAtByteN`, never inside a character). */
export const truncateTitle = (title: string): string => {
  let bytes = 0
  let end = 0
  for (const character of title) {
    const point = character.codePointAt(0) ?? 0
    const width = point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4
    if (bytes + width > 255) break
    bytes += width
    end += character.length
  }
  return title.slice(0, end)
}

/** Whether every attachment of a release has its own name (then download URLs name the file). */
export const namesAreUnique = (attachments: ReadonlyArray<Attachment>): boolean =>
  new Set(attachments.map((attachment) => attachment.name)).size === attachments.length

export const REPO_IS_EMPTY_MESSAGE = "repo is empty"
export const RELEASE_HAS_NO_TAG_MESSAGE = "Release has no Tag"
export const NOT_EXTERNAL_MESSAGE = "existing attachment is not external"
export const READ_RELEASES_MESSAGE = "user should have specific read permission or be a repo admin or a site admin"
export const WRITE_RELEASES_MESSAGE = "user should have a permission to write to a repo"

export const releaseExistsMessage = (tagName: string): string => `release tag already exist [tag_name: ${tagName}]`
export const releaseNotFoundMessage = (id: number, tagName: string): string =>
  `release tag does not exist [id: ${id}, tag_name: ${tagName}]`
export const attachmentNotFoundMessage = (id: number, uuid: string): string =>
  `attachment does not exist [id: ${id}, uuid: ${uuid}]`
export const invalidTagNameMessage = (tagName: string): string => `release tag name is not valid [tag_name: ${tagName}]`
export const invalidExternalUrlMessage = (url: string): string => `invalid external URL: '${url}'`

/** Creating a release at a target (branch, tag or commit) that does not exist: Forgejo's 404 with this text. */
export const unknownTargetMessage = (target: string): string =>
  `target "${target}" not found: object does not exist [id: ${target}, rel_path: ]`
