/**
 * A deleted repository's release attachments: the rows go with it (foreign keys), the files are
 * erased here once the deletion has committed. A file that cannot be erased is logged, not fatal.
 */
import { Effect, Layer } from "effect"
import { RepositoryCleanups } from "../repo/Repositories.ts"
import type { Repository } from "../repo/Repository.ts"
import { attachmentKey, BlobStorage } from "./BlobStorage.ts"
import { ReleaseStore } from "./ReleaseStore.ts"

export const layer = Layer.effect(
  RepositoryCleanups,
  Effect.gen(function*() {
    const store = yield* ReleaseStore
    const blobs = yield* BlobStorage
    const others = yield* RepositoryCleanups
    const attachmentFiles = (repository: Repository) =>
      Effect.map(store.storedAttachmentsOf(repository.id), (uuids) =>
        Effect.forEach(uuids, (uuid) =>
          blobs.detach(attachmentKey(uuid)).pipe(
            Effect.flatMap((detached) => detached.purge),
            Effect.catchCause((cause) => Effect.logWarning(`attachment ${uuid} of a deleted repository stays on disk`, cause))
          ), { discard: true }))
    return [...others, attachmentFiles]
  })
)
