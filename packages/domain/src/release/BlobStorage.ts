/**
 * The port for the files behind release attachments and package blobs: uploads are streamed into
 * a staging file (hashed on the way), then placed under their key in one step, so a failed or
 * interrupted upload never leaves a file where a reader could find it. Attachments are keyed by
 * their UUID, package blobs and LFS objects by their SHA-256 (content-addressed: placing the same
 * content twice leaves one file).
 */
import { Context, type Effect, Schema, type Scope, type Stream } from "effect"
import type { NotFound } from "../errors.ts"

export type BlobArea = "attachments" | "packages" | "lfs"

export interface BlobKey {
  readonly area: BlobArea
  /** An attachment's UUID, a package blob's or an LFS object's SHA-256 (lower-case hex). */
  readonly name: string
}

/** Lower-case hex digests of the whole content. */
export interface BlobDigests {
  readonly md5: string
  readonly sha1: string
  readonly sha256: string
  readonly sha512: string
}

/**
 * Which digests `receive` computes: all four (attachments and packages show them), or only the
 * SHA-256 (content-addressed LFS objects need no other; hashing 200 MB four times costs seconds).
 */
export type ReceivedDigests = "all" | "sha256"

/** A received upload, waiting in a staging file until placed or dropped with its scope. */
export interface StagedBlob {
  /** Opaque to callers: the adapter's handle on the staging file. */
  readonly id: string
  readonly size: number
  /** With `digests: "sha256"`, the others are empty strings. */
  readonly digests: BlobDigests
}

/** Bytes `start` to `end`, both included (an HTTP byte range). */
export interface ByteRange {
  readonly start: number
  readonly end: number
}

export interface BlobContent {
  /** The whole file's size in bytes. */
  readonly size: number
  /**
   * The content, or the given range of it. Nothing is held until the stream runs, and what it holds
   * is let go when the run ends however it ends: a response never sent (HEAD) never runs it.
   */
  readonly stream: (range?: ByteRange) => Stream.Stream<Uint8Array, BlobStorageFailure>
}

/** A blob moved aside by {@link BlobStorage.detach}: erase it after the commit, put it back after a rollback. */
export interface DetachedBlob {
  readonly purge: Effect.Effect<void>
  readonly restore: Effect.Effect<void, BlobStorageFailure>
}

/** The upload went past the size limit; nothing of it is kept. */
export class BlobTooLarge extends Schema.TaggedError<BlobTooLarge>()("BlobTooLarge", {
  limit: Schema.Number
}) {}

/** The disk refused (full, unwritable): what was asked has not happened. */
export class BlobStorageFailure extends Schema.TaggedError<BlobStorageFailure>()("BlobStorageFailure", {
  operation: Schema.String,
  message: Schema.String
}) {}

export class BlobStorage extends Context.Service<BlobStorage, {
  /**
   * Streams `content` into a staging file, counting and hashing it. Fails with BlobTooLarge as soon as
   * more than `maxSize` bytes arrived. The staging file goes when the scope closes, unless placed.
   */
  readonly receive: <E>(
    content: Stream.Stream<Uint8Array, E>,
    maxSize: number,
    digests?: ReceivedDigests
  ) => Effect.Effect<StagedBlob, E | BlobTooLarge | BlobStorageFailure, Scope.Scope>
  /** Moves the staged file to `key` in one step (replacing a file already there: same key, same content). */
  readonly place: (staged: StagedBlob, key: BlobKey) => Effect.Effect<void, BlobStorageFailure>
  /** Moves the file at `key` aside (nothing there: nothing to purge or restore). */
  readonly detach: (key: BlobKey) => Effect.Effect<DetachedBlob, BlobStorageFailure>
  /** The file at `key`; NotFound when there is none. */
  readonly read: (key: BlobKey) => Effect.Effect<BlobContent, NotFound>
}>()("@kiln/domain/release/BlobStorage") {}

export const attachmentKey = (uuid: string): BlobKey => ({ area: "attachments", name: uuid })
export const packageBlobKey = (sha256: string): BlobKey => ({ area: "packages", name: sha256 })
export const lfsObjectKey = (oid: string): BlobKey => ({ area: "lfs", name: oid })
