/**
 * The port through which the application keeps repositories on disk. Locations are the names the
 * database holds; the adapter maps them to storage (lower-cased, one directory per owner).
 */
import { Context, type Effect, type Option, Schema } from "effect"
import type { AlreadyExists, Conflict, Invalid, NotFound } from "../errors.ts"
import type { CommitInfo, GitActor } from "./CommitInfo.ts"
import type { GitStorageFailure } from "./GitStorageFailure.ts"

export interface RepositoryLocation {
  readonly owner: string
  readonly name: string
}

export interface InitialFile {
  /** Path inside the repository, `/`-separated, e.g. `README.md` or `docs/index.md`. */
  readonly path: string
  readonly content: Uint8Array | string
}

export interface InitialCommit {
  readonly files: ReadonlyArray<InitialFile>
  readonly message: string
  readonly author: GitActor
  readonly committer: GitActor
  /** Produces the ASCII-armored signature of `payload`; the commit then carries a `gpgsig` header. */
  readonly sign?: (payload: string) => Effect.Effect<string>
}

export interface CreateRepository {
  /** The branch HEAD names; the initial commit, if any, lands on it. */
  readonly defaultBranch: string
  readonly initialCommit?: InitialCommit
}

/** A file is larger than the reader asked to take (`readFile`'s `maxBytes`); nothing of it was read. */
export class FileTooLarge extends Schema.TaggedError<FileTooLarge>()("FileTooLarge", {
  path: Schema.String,
  size: Schema.Number,
  limit: Schema.Number
}) {}

export interface BranchHead {
  readonly name: string
  readonly commit: CommitInfo
}

export class GitStorage extends Context.Service<GitStorage, {
  /**
   * Creates the bare repository, with the initial commit when one is given (returned). Either the
   * whole repository appears or nothing does.
   */
  create(
    location: RepositoryLocation,
    options: CreateRepository
  ): Effect.Effect<Option.Option<CommitInfo>, AlreadyExists | Invalid | GitStorageFailure>
  /**
   * Deletes the repository. Idempotent: removing what is not there succeeds, so a caller may retry.
   * On failure the repository is still whole and still where it was.
   */
  remove(location: RepositoryLocation): Effect.Effect<void, Invalid | GitStorageFailure>
  /** Repository rename or transfer to another owner. Moving onto the same storage is a no-op. */
  move(
    from: RepositoryLocation,
    to: RepositoryLocation
  ): Effect.Effect<void, NotFound | AlreadyExists | Invalid | GitStorageFailure>
  /** Bytes on disk (every file of the repository directory; LFS lives elsewhere). */
  sizeInBytes(location: RepositoryLocation): Effect.Effect<number, NotFound | Invalid>
  /** Every branch with its head commit, in name order. */
  listBranches(location: RepositoryLocation): Effect.Effect<ReadonlyArray<BranchHead>, NotFound | Invalid>
  /** Every branch's name, in name order, without reading a commit (whether a repository is empty). */
  branchNames(location: RepositoryLocation): Effect.Effect<ReadonlyArray<string>, NotFound | Invalid>
  /**
   * The commit `ref` names: `HEAD`, a full ref (`refs/...`), a branch, a tag (peeled), a full or
   * short (at least 4 hex digits, unambiguous) commit id, tried in that order.
   */
  resolveCommit(location: RepositoryLocation, ref: string): Effect.Effect<CommitInfo, NotFound | Invalid>
  /**
   * The object branch `name` points at, read from the refs without reading the object (Forgejo's
   * `GetRefCommitID`); none when there is no such branch or `name` is no valid branch name.
   */
  branchTip(location: RepositoryLocation, name: string): Effect.Effect<Option.Option<string>, NotFound | Invalid>
  commitInfo(location: RepositoryLocation, id: string): Effect.Effect<CommitInfo, NotFound | Invalid>
  /**
   * The commit object `id` (a full id) exactly as git stores it: headers, blank line, message. What
   * signature verification splits into payload and signature.
   */
  rawCommit(location: RepositoryLocation, id: string): Effect.Effect<string, NotFound | Invalid>
  /**
   * The file at `path` in commit `commitId`; none when there is no file (or a directory) there.
   * Its size is looked up first: a file over `maxBytes` fails FileTooLarge without being read.
   */
  readFile(
    location: RepositoryLocation,
    commitId: string,
    path: string,
    maxBytes?: number
  ): Effect.Effect<Option.Option<Uint8Array>, NotFound | Invalid | FileTooLarge>
  /**
   * Creates `refs/heads/<name>` at `commitId`, failing if the branch appeared meanwhile (git's
   * compare-and-swap). AlreadyExists when the branch exists; Conflict when a tag has that name or
   * the name collides with a branch path (`a` vs `a/b`).
   */
  createBranch(
    location: RepositoryLocation,
    name: string,
    commitId: string
  ): Effect.Effect<void, NotFound | AlreadyExists | Conflict | Invalid | GitStorageFailure>
  /**
   * Deletes `refs/heads/<name>`, only if it still points at `expectedId` when one is given
   * (Conflict otherwise). NotFound when there is no such branch.
   */
  deleteBranch(
    location: RepositoryLocation,
    name: string,
    expectedId?: string
  ): Effect.Effect<void, NotFound | Conflict | Invalid | GitStorageFailure>
  /** Points HEAD at `refs/heads/<name>` (the branch need not exist yet, as in an empty repository). */
  setDefaultBranch(
    location: RepositoryLocation,
    name: string
  ): Effect.Effect<void, NotFound | Invalid | GitStorageFailure>
}>()("@kiln/domain/git/GitStorage") {}
