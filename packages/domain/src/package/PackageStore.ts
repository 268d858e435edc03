/**
 * The port through which packages, versions, files and blobs are stored. Every write is one
 * statement group the caller wraps in a transaction (see Packages); a blob a write returns is
 * locked until that transaction ends, so its file can be placed or moved aside safely.
 */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists, NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { NewPackageFile, PackageCoordinates, PackageFile, PackageType, PackageVersion } from "./Package.ts"

export interface PackageListFilter {
  /** Only this type; all types when absent. */
  readonly type?: PackageType | undefined
  /** Matched case-insensitively inside the package name; empty matches all. */
  readonly keyword: string
}

export interface AddedPackageFile {
  readonly file: PackageFile
  /** No file had this content before: the blob row is new (and its file is not there yet). */
  readonly newBlob: boolean
}

export class PackageStore extends Context.Service<PackageStore, {
  /**
   * Adds the file (creating the package and version when missing) and the blob row when no file has
   * that content yet. AlreadyExists `package file already exists` when the version has a file of that
   * name (case-insensitive).
   */
  readonly addFile: (file: NewPackageFile) => Effect.Effect<AddedPackageFile, AlreadyExists>
  readonly findFile: (at: PackageCoordinates, fileName: string) => Effect.Effect<Option.Option<PackageFile>>
  /**
   * Removes one file, and the version (and package) once it has no file left. Returns the SHA-256 of
   * the blob when no file refers to it any more (its row is gone; its file is the caller's).
   * NotFound `package does not exist` / `package file does not exist`.
   */
  readonly removeFile: (at: PackageCoordinates, fileName: string) => Effect.Effect<Option.Option<string>, NotFound>
  /** Removes the version with its files (and the package once empty); returns the blobs left without files. */
  readonly removeVersion: (at: PackageCoordinates) => Effect.Effect<ReadonlyArray<string>, NotFound>
  /**
   * Removes every package of the owner with their versions and files; returns the blobs left
   * without files, as `removeVersion` does.
   */
  readonly removeAllOf: (ownerId: number) => Effect.Effect<ReadonlyArray<string>>
  /** Whether the owner has a package version (Forgejo's HasOwnerPackages). */
  readonly ownsPackages: (ownerId: number) => Effect.Effect<boolean>
  /** The owner's package versions, newest first (created, then id). */
  readonly listVersions: (ownerId: number, filter: PackageListFilter, page: PageRequest) => Effect.Effect<Page<PackageVersion>>
  readonly countDownload: (versionId: number) => Effect.Effect<void>
}>()("@kiln/domain/package/PackageStore") {}
