/**
 * What an owner uses, counted once per byte in the leaves of the subject tree.
 * Every item counts toward the owner of the repository it belongs to (spec part 2, Quota model 1).
 */
import { Schema } from "effect"
import type { Subject } from "./Subject.ts"
import { leavesOf } from "./Subject.ts"

/** A size in bytes. */
export const ByteCount = Schema.Natural

/**
 * Usage of one owner, one field per leaf of the subject tree. No two leaves share a byte.
 * - `reposPublic` / `reposPrivate`: git data on disk of public / private repositories, LFS excluded
 * - `gitLfs`: LFS objects of all the owner's repositories
 * - `attachmentsIssues`: attachments on issues and issue comments
 * - `attachmentsReleases`: attachments on releases (generated archives excluded)
 * - `artifacts`: compressed size of unexpired action artifacts
 * - `packages`: blobs of package files of the owner's packages
 */
export const Usage = Schema.Struct({
  reposPublic: ByteCount,
  reposPrivate: ByteCount,
  gitLfs: ByteCount,
  attachmentsIssues: ByteCount,
  attachmentsReleases: ByteCount,
  artifacts: ByteCount,
  packages: ByteCount
})
export type Usage = typeof Usage.Type

/** The name of one leaf of the subject tree, which is a field of {@link Usage}. */
export type UsageLeaf = keyof Usage

/** Every leaf, in the order of the {@link Usage} fields. */
export const usageLeaves: ReadonlyArray<UsageLeaf> = [
  "reposPublic",
  "reposPrivate",
  "gitLfs",
  "attachmentsIssues",
  "attachmentsReleases",
  "artifacts",
  "packages"
]

/** An owner that stores nothing. */
export const emptyUsage: Usage = {
  reposPublic: 0,
  reposPrivate: 0,
  gitLfs: 0,
  attachmentsIssues: 0,
  attachmentsReleases: 0,
  artifacts: 0,
  packages: 0
}

/** The usage a subject measures: the sum of the leaves it covers (`size:wiki` covers none, so it is 0). */
export const usageOf = (usage: Usage, subject: Subject): number =>
  leavesOf(subject).reduce((sum, leaf) => sum + usage[leaf], 0)
