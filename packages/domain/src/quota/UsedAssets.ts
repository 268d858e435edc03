/**
 * The items behind an owner's asset usage, as the usage endpoints list them (biggest first).
 * They carry what the wire layer needs to build Forgejo's URLs; this module builds none.
 */
import { Schema } from "effect"
import { ByteCount } from "./Usage.ts"

/** A repository named by its owner's name and its own name. */
export const RepositoryPath = Schema.Struct({ owner: Schema.String, name: Schema.String })
export type RepositoryPath = typeof RepositoryPath.Type

/** What an attachment is attached to. Attachments not yet linked to anything still count (as issue attachments). */
export const AttachmentContainer = Schema.Union([
  Schema.TaggedStruct("Release", { releaseId: Schema.Int, tagName: Schema.String }),
  Schema.TaggedStruct("Comment", { commentId: Schema.Int, issueIndex: Schema.Int, isPull: Schema.Boolean }),
  Schema.TaggedStruct("Issue", { issueIndex: Schema.Int, isPull: Schema.Boolean }),
  Schema.TaggedStruct("Unlinked", {})
])
export type AttachmentContainer = typeof AttachmentContainer.Type

export const QuotaAttachment = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  size: ByteCount,
  repository: RepositoryPath,
  container: AttachmentContainer
})
export type QuotaAttachment = typeof QuotaAttachment.Type

/** One package version; its size is the sum of the blobs of its files. */
export const QuotaPackage = Schema.Struct({
  /** The package version's id. */
  id: Schema.Int,
  /** Name of the user or organization that owns the package. */
  owner: Schema.String,
  type: Schema.String,
  name: Schema.String,
  version: Schema.String,
  size: ByteCount
})
export type QuotaPackage = typeof QuotaPackage.Type

/** An unexpired action artifact; its size is the compressed size. */
export const QuotaArtifact = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  size: ByteCount,
  repository: RepositoryPath,
  /** The per-repository index of the run that made it (its HTML page is `.../actions/runs/<index>`). */
  runIndex: Schema.Int
})
export type QuotaArtifact = typeof QuotaArtifact.Type
