/**
 * The port that fills a new repository from another one: a fork from a local repository, a
 * migration from a remote. Both first fill a staging directory that nothing can see; `place`
 * then moves it to its final location in one step, and closing the scope removes whatever was
 * not placed. A slow clone therefore holds no database transaction, and a failure leaves nothing.
 */
import { Context, type Effect, type Option, Schema, type Scope } from "effect"
import type { AlreadyExists, Invalid, NotFound } from "../errors.ts"
import type { GitStorageFailure } from "./GitStorageFailure.ts"
import type { RepositoryLocation } from "./GitStorage.ts"

/** A filled repository waiting in its staging directory. */
export interface StagedRepository {
  /** The branch HEAD names (the remote's default branch); none when HEAD is detached or unreadable. */
  readonly head: Option.Option<string>
  /** Its branch names, sorted. */
  readonly branches: ReadonlyArray<string>
  /** Bytes on disk. */
  readonly size: number
  /** Moves the staging directory to `location`. AlreadyExists when files are there. */
  readonly place: (location: RepositoryLocation) => Effect.Effect<void, AlreadyExists | Invalid | GitStorageFailure>
}

/** Where a migration clones from, after the host policy allowed it. */
export interface RemoteSource {
  /** `http(s)://` or `git://` URL without credentials. */
  readonly url: string
  readonly credentials: Option.Option<{ readonly username: string; readonly password: string }>
  /**
   * The addresses the host name was checked against: git connects to these and no other (no
   * second lookup that a DNS rebinding could answer differently). Empty for local paths.
   */
  readonly addresses: ReadonlyArray<string>
  /** A `mirror` migration keeps its remote; others drop it. */
  readonly mirror: boolean
}

/**
 * The remote refused or failed: `auth` (credentials refused), `failed` (git gave up: unreachable,
 * not a repository, redirected, ...), `tooLarge` (over the size limit), `stalled` (no progress).
 * `message` has no credentials in it.
 */
export class TransferFailure extends Schema.TaggedError<TransferFailure>()("TransferFailure", {
  reason: Schema.Literals(["auth", "failed", "tooLarge", "stalled"]),
  message: Schema.String
}) {}

export class GitTransfers extends Context.Service<GitTransfers, {
  /**
   * A copy of the repository at `from` with every branch and tag, sharing (hard-linking) its object
   * files where the file system allows and copying them otherwise; independent of `from` afterwards.
   */
  fork(from: RepositoryLocation): Effect.Effect<StagedRepository, NotFound | Invalid | GitStorageFailure, Scope.Scope>
  /** Clones every branch and tag of a remote (or local path), within the configured size and stall limits. */
  cloneRemote(source: RemoteSource): Effect.Effect<StagedRepository, TransferFailure | GitStorageFailure, Scope.Scope>
  /** The addresses a host name resolves to (IPv4 and IPv6); empty when it does not resolve. */
  resolveHost(host: string): Effect.Effect<ReadonlyArray<string>>
  /** Whether `path` is an existing directory (local-path migrations). */
  isDirectory(path: string): Effect.Effect<boolean>
}>()("@kiln/domain/git/GitTransfers") {}
