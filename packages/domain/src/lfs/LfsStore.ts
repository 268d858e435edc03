/**
 * The port through which LFS bookkeeping is stored: objects (one per content, whatever the number
 * of repositories), the references of repositories to them, locks, uploads in flight and the
 * tokens of `git-lfs-authenticate`. A repository's references count toward its owner's
 * `size:git:lfs` in the same transaction as they change (the kept totals).
 *
 * Failures other than the listed domain errors are defects (a broken database).
 */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists, NotFound } from "../errors.ts"
import type { LfsLock } from "./LfsLock.ts"
import type { LfsPointer } from "./LfsPointer.ts"

export interface LockQuery {
  readonly id?: number | undefined
  readonly path?: string | undefined
  /** Locks skipped (a page's start), oldest first. */
  readonly offset: number
  readonly limit: number
}

/** A token `git-lfs-authenticate` handed out, as stored: the secret only as its SHA-256. */
export interface StoredLfsToken {
  readonly repositoryId: number
  /** Whom it was handed to: an account, or a deploy key (its public key's id). */
  readonly holder: { readonly _tag: "User"; readonly userId: number } | { readonly _tag: "DeployKey"; readonly keyId: number }
  readonly operation: "upload" | "download"
  /** Unix milliseconds. */
  readonly expiresAt: number
}

export class LfsStore extends Context.Service<LfsStore, {
  /** The stored object of that oid, referenced or not. */
  readonly find: (oid: string) => Effect.Effect<Option.Option<LfsPointer>>
  /** The object as the repository references it; none when it does not. */
  readonly referenced: (repositoryId: number, oid: string) => Effect.Effect<Option.Option<LfsPointer>>
  /** Which of the oids the repository references (one query for a whole batch). */
  readonly referencedAmong: (repositoryId: number, oids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, number>>
  /** Which of the oids are stored, with their sizes. */
  readonly storedAmong: (oids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, number>>
  /** Repositories that reference the object, at most `limit`, oldest reference first. */
  readonly referencingRepositories: (oid: string, limit: number) => Effect.Effect<ReadonlyArray<number>>
  /**
   * Records the object as stored (its file placed in the same transaction) and locks its row until
   * the transaction ends, so the collection cannot take it meanwhile. An object already there is
   * kept, and counts as referenced again.
   */
  readonly claim: (object: LfsPointer, now: number) => Effect.Effect<void>
  /**
   * Adds the repository's reference to a stored object (nothing when it has one); true when added.
   * NotFound when the object is not stored (the collection removed it): it must be uploaded again.
   */
  readonly addReference: (repositoryId: number, object: LfsPointer, now: number) => Effect.Effect<boolean, NotFound>
  readonly removeReference: (repositoryId: number, oid: string) => Effect.Effect<void>

  /** An upload of `oid` begins (`now` in unix milliseconds); the collection leaves the object alone until it ends. */
  readonly beginUpload: (id: string, oid: string, now: number) => Effect.Effect<void>
  readonly endUpload: (id: string) => Effect.Effect<void>

  /**
   * In the caller's transaction (times in unix milliseconds): marks objects without a reference as unreferenced since `now`,
   * then locks (skipping rows another transaction holds) at most `limit` objects unreferenced since
   * `before` or earlier with no upload of them begun after `uploadsAfter`, and returns them.
   */
  readonly lockCollectable: (options: {
    readonly now: number
    readonly before: number
    readonly uploadsAfter: number
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<LfsPointer>>
  /** Removes objects (rows only; their references must be gone). */
  readonly removeObjects: (oids: ReadonlyArray<string>) => Effect.Effect<void>
  /** Forgets uploads begun before `before` (their processes stopped). */
  readonly forgetUploads: (before: number) => Effect.Effect<void>

  /** Every stored object, by oid, `limit` at a time after `after` (the doctor, the dump). */
  readonly listObjects: (after: string, limit: number) => Effect.Effect<ReadonlyArray<LfsPointer & { readonly referenced: boolean }>>

  // --- locks ---
  /** AlreadyExists carries nothing: the existing lock is read with `locks`. */
  readonly createLock: (repositoryId: number, path: string, ownerId: number, now: number) => Effect.Effect<LfsLock, AlreadyExists>
  readonly locks: (repositoryId: number, query: LockQuery) => Effect.Effect<ReadonlyArray<LfsLock>>
  readonly removeLock: (repositoryId: number, id: number) => Effect.Effect<void>

  // --- tokens ---
  readonly saveToken: (hash: string, token: StoredLfsToken) => Effect.Effect<void>
  /** The token of that hash, unless expired at `now`. */
  readonly findToken: (hash: string, now: number) => Effect.Effect<Option.Option<StoredLfsToken>>
  readonly pruneTokens: (now: number) => Effect.Effect<void>
}>()("@kiln/domain/lfs/LfsStore") {}
