/**
 * The LFS objects of a repository, as git-lfs's batch and basic transfer API use them, with
 * Forgejo's rules (services/lfs/server.go), for a repository GitAccess already opened to the caller:
 *
 * - an object is stored once for the whole instance; a repository sees only what it references;
 * - a repository may reference an object stored already only when the caller proves possession
 *   (uploads the bytes, which are hashed) or may read a repository that references it; otherwise
 *   the batch asks for an upload as if the object were new;
 * - an upload is streamed and hashed into a staging file; a size or hash mismatch keeps nothing;
 *   the object's row, its file and the reference are placed in one transaction, which also holds
 *   the object's row against the collection;
 * - new references of an owner over quota are refused (`size:git:lfs` and the subjects holding it).
 */
import { Clock, Context, Data, Effect, Layer, Option, type Stream } from "effect"
import { Hex } from "effect/encoding"
import { SecureRandom } from "effect/crypto"
import { NotFound } from "../errors.ts"
import { QuotaEnforcement, type QuotaExceeded } from "../quota/QuotaEnforcement.ts"
import {
  type BlobContent,
  BlobStorage,
  type BlobStorageFailure,
  BlobTooLarge,
  lfsObjectKey
} from "../release/BlobStorage.ts"
import { Repositories } from "../repo/Repositories.ts"
import type { OwnedRepository } from "../repo/Repository.ts"
import { Transactions } from "../repo/Transactions.ts"
import type { User } from "../user/User.ts"
import { atLeast } from "../org/AccessMode.ts"
import { isValidPointer, type LfsPointer } from "./LfsPointer.ts"
import { LfsSettings } from "./LfsSettings.ts"
import { LfsStore } from "./LfsStore.ts"

export type BatchOperation = "upload" | "download"

/** What the batch answers for one object. */
export type BatchItem =
  | { readonly _tag: "Download"; readonly pointer: LfsPointer }
  | { readonly _tag: "Upload"; readonly pointer: LfsPointer }
  /** Upload: the repository has it already, nothing to send. */
  | { readonly _tag: "Present"; readonly pointer: LfsPointer }
  | { readonly _tag: "Failed"; readonly pointer: LfsPointer; readonly code: 404 | 422; readonly message: string }

/** The batch names more objects than KILN_LFS_MAX_BATCH_SIZE allows (Forgejo: 413). */
export class LfsBatchTooLarge extends Data.TaggedError("LfsBatchTooLarge")<{ readonly limit: number }> {}

/** The received content is not the object named: Forgejo's 422 with lfs_module's texts. */
export class LfsContentMismatch extends Data.TaggedError("LfsContentMismatch")<{ readonly message: string }> {}

export const SIZE_MISMATCH = "Content size does not match"
export const HASH_MISMATCH = "Content hash does not match OID"
export const INVALID_POINTER = "Oid or size are invalid"

/** How many repositories referencing an object are tried for read access before giving up. */
const ACCESS_CANDIDATES = 20

export class LfsObjects extends Context.Service<LfsObjects, {
  readonly batch: (
    target: OwnedRepository,
    caller: Option.Option<User>,
    operation: BatchOperation,
    objects: ReadonlyArray<LfsPointer>
  ) => Effect.Effect<ReadonlyArray<BatchItem>, LfsBatchTooLarge | QuotaExceeded>
  /** Receives the object's bytes; its reference exists when this succeeds. */
  readonly upload: <E>(
    target: OwnedRepository,
    caller: Option.Option<User>,
    pointer: LfsPointer,
    content: Stream.Stream<Uint8Array, E>
  ) => Effect.Effect<void, E | LfsContentMismatch | QuotaExceeded | BlobStorageFailure>
  /** The object's content when the repository references it. */
  readonly download: (target: OwnedRepository, oid: string) => Effect.Effect<BlobContent, NotFound>
  /** Whether the repository references the object with that size and its file is whole. */
  readonly verify: (target: OwnedRepository, pointer: LfsPointer) => Effect.Effect<boolean>
}>()("@kiln/domain/lfs/LfsObjects") {}

const nowSeconds = Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000))

export const layer: Layer.Layer<
  LfsObjects,
  never,
  LfsStore | BlobStorage | Transactions | Repositories | QuotaEnforcement | SecureRandom.SecureRandom
> = Layer.effect(
  LfsObjects,
  Effect.gen(function*() {
    const store = yield* LfsStore
    const blobs = yield* BlobStorage
    const transactions = yield* Transactions
    const repositories = yield* Repositories
    const quotas = yield* QuotaEnforcement
    const random = yield* SecureRandom.SecureRandom
    const settings = yield* LfsSettings

    /** Forgejo's LFSObjectAccessible: the caller may read the code of a repository referencing it. */
    const accessible = Effect.fnUntraced(function*(caller: Option.Option<User>, oid: string) {
      if (Option.isSome(caller) && caller.value.isAdmin) return true
      for (const id of yield* store.referencingRepositories(oid, ACCESS_CANDIDATES)) {
        const found = yield* Effect.option(repositories.accessibleById(caller, id))
        if (Option.isSome(found) && atLeast(found.value.access.units["repo.code"], "read")) return true
      }
      return false
    })

    const batch = Effect.fnUntraced(function*(
      target: OwnedRepository,
      caller: Option.Option<User>,
      operation: BatchOperation,
      objects: ReadonlyArray<LfsPointer>
    ) {
      if (settings.maxBatchSize > 0 && objects.length > settings.maxBatchSize) {
        return yield* new LfsBatchTooLarge({ limit: settings.maxBatchSize })
      }
      const repositoryId = target.repository.id
      const valid = objects.filter(isValidPointer)
      const oids = [...new Set(valid.map((object) => object.oid))]
      const referenced = yield* store.referencedAmong(repositoryId, oids)
      const stored = yield* store.storedAmong(oids)
      const items: Array<BatchItem> = []
      const linkable: Array<LfsPointer> = []
      for (const pointer of objects) {
        if (!isValidPointer(pointer)) {
          items.push({ _tag: "Failed", pointer, code: 422, message: INVALID_POINTER })
          continue
        }
        const size = referenced.get(pointer.oid)
        if (size !== undefined && size !== pointer.size) {
          items.push({ _tag: "Failed", pointer, code: 422, message: `Object ${pointer.oid} is not ${pointer.size} bytes` })
          continue
        }
        if (operation === "download") {
          items.push(size === undefined ? { _tag: "Failed", pointer, code: 404, message: "Not Found" } : { _tag: "Download", pointer })
          continue
        }
        if (size !== undefined) {
          items.push({ _tag: "Present", pointer })
          continue
        }
        const storedSize = stored.get(pointer.oid)
        if (storedSize === undefined && settings.maxFileSize > 0 && pointer.size > settings.maxFileSize) {
          items.push({ _tag: "Failed", pointer, code: 422, message: `Size must be less than or equal to ${settings.maxFileSize}` })
          continue
        }
        if (storedSize === pointer.size) linkable.push(pointer)
        items.push({ _tag: "Upload", pointer })
      }
      // Anything this batch would add counts toward the owner: refused as a whole when over quota.
      if (items.some((item) => item._tag === "Upload")) yield* quotas.require(target.owner, "size:git:lfs")
      // Each oid is decided once, whatever the outcome: a batch naming one object thousands of
      // times asks the stores once for it (every item of that oid gets the same answer, as in
      // Forgejo, where the first item's reference makes the later ones present).
      const decided = new Set<string>()
      const linked = new Set<string>()
      const now = yield* nowSeconds
      for (const pointer of linkable) {
        if (decided.has(pointer.oid)) continue
        decided.add(pointer.oid)
        if (!(yield* accessible(caller, pointer.oid))) continue
        // Gone meanwhile (collected): it is uploaded again.
        const added = yield* Effect.option(store.addReference(repositoryId, pointer, now))
        if (Option.isSome(added)) linked.add(pointer.oid)
      }
      return items.map((item): BatchItem => item._tag === "Upload" && linked.has(item.pointer.oid) ? { _tag: "Present", pointer: item.pointer } : item)
    })

    const receive = <E>(pointer: LfsPointer, content: Stream.Stream<Uint8Array, E>) =>
      Effect.gen(function*() {
        const staged = yield* blobs.receive(content, pointer.size, "sha256").pipe(
          Effect.catchIf((error): error is BlobTooLarge => error instanceof BlobTooLarge, () =>
            Effect.fail(new LfsContentMismatch({ message: SIZE_MISMATCH })))
        )
        if (staged.size !== pointer.size) return yield* new LfsContentMismatch({ message: SIZE_MISMATCH })
        if (staged.digests.sha256 !== pointer.oid) return yield* new LfsContentMismatch({ message: HASH_MISMATCH })
        return staged
      })

    const upload = <E>(target: OwnedRepository, caller: Option.Option<User>, pointer: LfsPointer, content: Stream.Stream<Uint8Array, E>) =>
      Effect.gen(function*() {
        const repositoryId = target.repository.id
        if (Option.isSome(yield* store.referenced(repositoryId, pointer.oid))) return
        yield* quotas.require(target.owner, "size:git:lfs")
        const now = yield* nowSeconds
        // Stored already and readable elsewhere: referenced without reading the bytes (Forgejo).
        const stored = yield* store.find(pointer.oid)
        if (Option.isSome(stored) && stored.value.size === pointer.size && (yield* accessible(caller, pointer.oid))) {
          const added = yield* Effect.option(store.addReference(repositoryId, pointer, now))
          if (Option.isSome(added)) return
        }
        const id = Hex.encode(yield* Effect.orDie(random.randomBytes(12)))
        yield* Effect.scoped(Effect.gen(function*() {
          yield* Effect.acquireRelease(
            Effect.flatMap(Clock.currentTimeMillis, (millis) => store.beginUpload(id, pointer.oid, millis)),
            () => store.endUpload(id)
          )
          const staged = yield* receive(pointer, content)
          yield* transactions.run(Effect.gen(function*() {
            yield* store.claim(pointer, now)
            yield* blobs.place(staged, lfsObjectKey(pointer.oid))
            // The row is held since the claim: the object cannot be gone.
            yield* Effect.orDie(store.addReference(repositoryId, pointer, now))
          }))
        }))
      })

    const download = (target: OwnedRepository, oid: string) =>
      Effect.gen(function*() {
        const found = yield* store.referenced(target.repository.id, oid)
        if (Option.isNone(found)) return yield* new NotFound({ message: "Not Found" })
        return yield* blobs.read(lfsObjectKey(oid))
      })

    const verify = (target: OwnedRepository, pointer: LfsPointer) =>
      Effect.gen(function*() {
        if (!isValidPointer(pointer)) return false
        const found = yield* store.referenced(target.repository.id, pointer.oid)
        if (Option.isNone(found) || found.value.size !== pointer.size) return false
        const content = yield* Effect.option(blobs.read(lfsObjectKey(pointer.oid)))
        return Option.isSome(content) && content.value.size === pointer.size
      })

    return LfsObjects.of({ batch, upload, download, verify })
  })
)
