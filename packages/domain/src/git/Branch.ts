/**
 * A branch as the branch table records it (Forgejo's `branch` table plus what the Branch JSON shows
 * of the head commit), kept in step with the refs on every push and server-side ref change, so
 * that listing branches never walks the refs (api-facts §1.5, §4.6).
 */
import type { CommitVerification } from "../signing/CommitVerification.ts"
import type { CommitInfo, GitActor } from "./CommitInfo.ts"
import { isValidRefName } from "./RefName.ts"

export interface Branch {
  readonly name: string
  /** Full id of the head commit. */
  readonly commitId: string
  /** The head commit's raw message (trailing newline included), as Forgejo shows it. */
  readonly message: string
  readonly author: GitActor
  readonly committer: GitActor
  /** Computed when the branch was recorded (with the instance key), never per request. */
  readonly verification: CommitVerification
}

export const branchOf = (name: string, commit: CommitInfo, verification: CommitVerification): Branch => ({
  name,
  commitId: commit.id,
  message: commit.message,
  author: commit.author,
  committer: commit.committer,
  verification
})

/** Forgejo's listing order: the latest head commit (committer time) first, then by name (byte order). */
export const compareBranches = (a: Branch, b: Branch): number =>
  b.committer.when.seconds - a.committer.when.seconds || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

export const BRANCH_PREFIX = "refs/heads/"

/** The branch a full ref names, if it names one. */
export const branchNameOf = (ref: string): string | undefined =>
  ref.startsWith(BRANCH_PREFIX) && ref.length > BRANCH_PREFIX.length ? ref.slice(BRANCH_PREFIX.length) : undefined

/** The branches among full ref names, those git accepts (a ref file's name could be anything), sorted. */
export const branchNamesAmong = (refs: Iterable<string>): ReadonlyArray<string> => {
  const names: Array<string> = []
  for (const ref of refs) {
    const name = branchNameOf(ref)
    if (name !== undefined && isValidRefName(name)) names.push(name)
  }
  return names.sort()
}

// Forgejo's texts (routers/api/v1/repo/branch.go, services/repository/branch.go).
export const EMPTY_REPOSITORY_MESSAGE = "Git Repository is empty."
export const MIRROR_REPOSITORY_MESSAGE = "Git Repository is a mirror."
export const OLD_BRANCH_MISSING_MESSAGE = "The old branch does not exist"
export const BRANCH_EXISTS_MESSAGE = "The branch already exists."
export const BRANCH_TAG_EXISTS_MESSAGE = "The branch with the same tag already exists."
export const BRANCH_NAME_CONFLICT_MESSAGE = "The branch with the same name already exists."
export const DEFAULT_BRANCH_MESSAGE = "can not delete default branch"
export const REQUIRE_CODE_READ_MESSAGE = "user should have specific read permission or be a repo admin or a site admin"
export const REQUIRE_CODE_WRITE_MESSAGE = "user should have a permission to write to a repo"

export const branchMissingMessage = (name: string): string => `branch does not exist [name: ${name}]`
