/**
 * The port for downloadable snapshots of a commit (api-facts §4.9): zip and tar.gz archives of the
 * tree under a `<repo>/` prefix, and git bundles. An archive is a pure function of the commit id,
 * the prefix and the format, so the adapter may keep it once made and serve it again; what it keeps
 * is filed under the repository's id, so that it can be forgotten with the repository.
 */
import { Context, type Effect, Schema, type Stream } from "effect"
import type { Invalid, NotFound } from "../errors.ts"
import type { GitStorageFailure } from "./GitStorageFailure.ts"
import type { RepositoryLocation } from "./GitStorage.ts"

export const archiveFormats = ["zip", "tar.gz", "bundle"] as const
export type ArchiveFormat = typeof archiveFormats[number]

/** A byte range, both ends inclusive (HTTP `Range` semantics). */
export interface ByteRange {
  readonly start: number
  readonly end: number
}

/** A finished archive: its size, and its bytes (all of them, or one range) as a stream. */
export interface Archive {
  readonly size: number
  /** Holds nothing (no open file) until the stream runs, and lets it go when the run ends however it ends. */
  readonly read: (range?: ByteRange) => Stream.Stream<Uint8Array, GitStorageFailure>
}

/** The repository an archive is made of: its id files the archive, its location finds the git data. */
export interface ArchivedRepository {
  readonly id: number
  readonly location: RepositoryLocation
}

/**
 * The archive cache could not hold the archive within its bound: it is larger than the whole cache
 * (`transient` false), or the room is held by archives downloaded moments ago (`transient`: a later
 * try may succeed).
 */
export class ArchiveCacheFull extends Schema.TaggedError<ArchiveCacheFull>()("ArchiveCacheFull", {
  message: Schema.String,
  transient: Schema.Boolean
}) {}

/**
 * Too many archives are waiting to be made: refused at once rather than queued; the caller may try
 * again after `retryAfterSeconds`.
 */
export class ArchivesBusy extends Schema.TaggedError<ArchivesBusy>()("ArchivesBusy", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}) {}

/** The commit an archive request names. */
export interface ArchiveCommit {
  readonly id: string
  /** Committer time, unix seconds. */
  readonly committedAt: number
}

export class GitArchives extends Context.Service<GitArchives, {
  /**
   * The commit `ref` names: a branch, a tag (peeled), or a full or short commit id, as `git
   * rev-parse` resolves them. NotFound when it names no commit.
   */
  resolve(location: RepositoryLocation, ref: string): Effect.Effect<ArchiveCommit, NotFound | Invalid>
  /**
   * The archive of commit `commitId` (a full id) of the repository; `prefix` is the directory the
   * zip and tar entries sit in (the repository name). The same arguments give the same bytes.
   * Only a bounded number are made at once: a bounded number of others wait (ArchivesBusy past
   * that), and one whose every requester was interrupted while it waited is never made.
   */
  archive(
    repository: ArchivedRepository,
    commitId: string,
    format: ArchiveFormat,
    prefix: string
  ): Effect.Effect<Archive, NotFound | Invalid | GitStorageFailure | ArchiveCacheFull | ArchivesBusy>
  /** Forgets every archive kept for the repository (it was deleted, or renamed: its prefix changed). */
  discard(repositoryId: number): Effect.Effect<void, GitStorageFailure>
}>()("@kiln/domain/git/GitArchives") {}
