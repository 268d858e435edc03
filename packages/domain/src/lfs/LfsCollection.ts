/**
 * Nothing orphaned, nothing lost: the periodic pass (once per due time across processes, as every
 * PeriodicTask) that removes objects no repository has referenced for a whole grace period.
 *
 * An object seen without a reference is marked, and goes only when still unreferenced a grace
 * period later. Each candidate's row is locked (rows another transaction holds are skipped) and
 * its file moved aside inside the transaction that deletes the row: an upload claiming the same
 * object waits for the lock and then stores it anew, so either the upload or the collection comes
 * first, never both halfway. Objects with an upload in flight are left alone. Files are erased
 * after the commit (put back after a rollback). Expired `git-lfs-authenticate` tokens and records
 * of uploads of stopped processes go too.
 */
import { Clock, Context, Effect, Layer } from "effect"
import { JobFailed } from "../coordination/Jobs.ts"
import * as PeriodicTask from "../coordination/PeriodicTask.ts"
import { BlobStorage, type DetachedBlob, lfsObjectKey } from "../release/BlobStorage.ts"
import { Transactions } from "../repo/Transactions.ts"
import { LfsSettings } from "./LfsSettings.ts"
import { LfsStore } from "./LfsStore.ts"

/** How many objects one transaction removes. */
const BATCH = 200
/** An upload recorded longer ago than this belongs to a process that stopped. */
const UPLOAD_LIFETIME_MILLIS = 24 * 60 * 60 * 1000

export class LfsCollection extends Context.Service<LfsCollection, {
  /** One pass now; the number of objects removed. */
  readonly collect: Effect.Effect<number>
  readonly task: PeriodicTask.PeriodicTask<never>
}>()("@kiln/domain/lfs/LfsCollection") {}

export const layer = (options: { readonly every: number }): Layer.Layer<LfsCollection, never, LfsStore | BlobStorage | Transactions> =>
  Layer.effect(
    LfsCollection,
    Effect.gen(function*() {
      const store = yield* LfsStore
      const blobs = yield* BlobStorage
      const transactions = yield* Transactions
      const settings = yield* LfsSettings

      const removeBatch = (now: number, graceMillis: number) =>
        Effect.gen(function*() {
          const detached: Array<DetachedBlob> = []
          const removed = yield* transactions.run(Effect.gen(function*() {
            const objects = yield* store.lockCollectable({
              now,
              before: now - graceMillis,
              uploadsAfter: now - UPLOAD_LIFETIME_MILLIS,
              limit: BATCH
            })
            for (const object of objects) detached.push(yield* blobs.detach(lfsObjectKey(object.oid)))
            yield* store.removeObjects(objects.map((object) => object.oid))
            return objects.length
          })).pipe(Effect.onError(() => Effect.forEach(detached, (blob) => Effect.ignore(blob.restore), { discard: true })))
          yield* Effect.forEach(detached, (blob) => blob.purge, { discard: true })
          return removed
        })

      const collect = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        let total = 0
        while (true) {
          const removed = yield* removeBatch(now, settings.collectionGraceMillis)
          total += removed
          if (removed < BATCH) break
        }
        yield* store.pruneTokens(now)
        yield* store.forgetUploads(now - UPLOAD_LIFETIME_MILLIS)
        if (total > 0) yield* Effect.logInfo(`LFS collection removed ${total} unreferenced objects`)
        return total
      }).pipe(Effect.orDie)

      const task = PeriodicTask.make({
        kind: "lfs-collection",
        every: options.every,
        lease: 30 * 60 * 1000,
        run: collect.pipe(Effect.catchDefect((defect) => Effect.fail(new JobFailed({ message: String(defect) }))), Effect.asVoid)
      })
      return LfsCollection.of({ collect, task })
    })
  )
