/**
 * Packages as Forgejo's registry keeps them [models/packages]: a package (owner, type, name) has
 * versions, a version has files, a file points at a blob. Blobs are content-addressed (SHA-256)
 * and shared between files with the same content. Names and versions are matched case-insensitively.
 */
import type { User } from "../user/User.ts"
import type { BlobDigests } from "../release/BlobStorage.ts"

/** Kiln serves the generic registry. */
export type PackageType = "generic"

/** One version of a package, as listings show it. */
export interface PackageVersion {
  /** The version's id (Forgejo's Package JSON `id`). */
  readonly id: number
  readonly owner: User
  /** The uploader; none once the account is gone. */
  readonly creator: User | undefined
  readonly type: PackageType
  readonly name: string
  readonly lowerName: string
  readonly version: string
  readonly lowerVersion: string
  /** Unix seconds. */
  readonly createdAt: number
}

export interface PackageBlob {
  readonly size: number
  readonly digests: BlobDigests
}

/** One file of a version with its blob. */
export interface PackageFile {
  readonly id: number
  readonly versionId: number
  readonly name: string
  readonly blob: PackageBlob
  /** Unix seconds. */
  readonly createdAt: number
}

/** The version, file and blob a generic upload adds. */
export interface NewPackageFile {
  readonly ownerId: number
  readonly creatorId: number
  readonly type: PackageType
  readonly name: string
  readonly version: string
  readonly fileName: string
  readonly blob: PackageBlob
  readonly createdAt: number
}

/** Which version (and file) a generic path names. */
export interface PackageCoordinates {
  readonly ownerId: number
  readonly type: PackageType
  readonly name: string
  readonly version: string
}

export const PACKAGE_NOT_FOUND_MESSAGE = "package does not exist"
export const PACKAGE_FILE_NOT_FOUND_MESSAGE = "package file does not exist"
export const PACKAGE_FILE_EXISTS_MESSAGE = "package file already exists"
/** Forgejo's ErrUserOwnPackages: an account (user or organization) is not deleted while it owns packages. */
export const ownsPackagesMessage = (ownerId: number): string => `user still has ownership of packages [uid: ${ownerId}]`
