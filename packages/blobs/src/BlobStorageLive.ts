/**
 * BlobStorage on the local disk, under one root (Kiln's data directory):
 *
 *   <root>/attachments/<u0>/<u1>/<uuid>      release attachments (Forgejo's layout)
 *   <root>/packages/<h0h1>/<h2h3>/<sha256>   package blobs, content-addressed
 *   <root>/lfs/<h0h1>/<h2h3>/<h4...>         LFS objects, content-addressed (Forgejo's layout)
 *   <root>/tmp/<owner>/uploads/<id>          uploads being received
 *   <root>/tmp/<owner>/trash/<id>            files moved aside by a deletion in progress
 *
 * Staging and trash sit on the same file system as their targets, so placing and moving aside are
 * single renames. Several processes may share the root: each works in a directory of its own
 * under tmp/ (`ProcessWorkOwner.ts`), and a start sweeps only the directories of processes that
 * are gone, never another live process's uploads or the trash it may still restore from.
 */
import { createHash, type Hash, randomBytes } from "node:crypto"
import { createReadStream } from "node:fs"
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises"
import { dirname, join } from "node:path"
import { Effect, Layer, Stream } from "effect"
import { NotFound } from "@kiln/domain/errors"
import {
  type BlobKey,
  BlobStorage,
  BlobStorageFailure,
  BlobTooLarge,
  type ByteRange,
  type DetachedBlob,
  type StagedBlob
} from "@kiln/domain/release/BlobStorage"
import { isLeftBehind, ownerTag } from "./ProcessWorkOwner.ts"

const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const io = <A>(operation: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (error) => new BlobStorageFailure({ operation, message: describe(error) }) })

const keyPatterns = {
  attachments: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  packages: /^[0-9a-f]{64}$/,
  lfs: /^[0-9a-f]{64}$/
} as const

const stagingId = /^[0-9a-f]{24}$/

/** Where a key's file lives. Keys come from the database, so a malformed one is a bug, not input. */
export const blobPath = (root: string, key: BlobKey): string => {
  if (!keyPatterns[key.area].test(key.name)) throw new RangeError(`not a ${key.area} key: ${JSON.stringify(key.name)}`)
  switch (key.area) {
    case "attachments":
      return join(root, "attachments", key.name.slice(0, 1), key.name.slice(1, 2), key.name)
    case "packages":
      return join(root, "packages", key.name.slice(0, 2), key.name.slice(2, 4), key.name)
    case "lfs":
      return join(root, "lfs", key.name.slice(0, 2), key.name.slice(2, 4), key.name.slice(4))
  }
}

const hex = (hash: Hash) => hash.digest("hex")

export const makeBlobStorage = (root: string) =>
  Effect.gen(function*() {
    const temporary = join(root, "tmp")
    const uploads = join(temporary, ownerTag, "uploads")
    const trash = join(temporary, ownerTag, "trash")
    yield* io("sweep", async () => {
      await mkdir(temporary, { recursive: true })
      for (const entry of await readdir(temporary)) {
        const path = join(temporary, entry)
        if (await isLeftBehind(path, entry)) await rm(path, { recursive: true, force: true })
      }
      await mkdir(uploads, { recursive: true })
      await mkdir(trash, { recursive: true })
    }).pipe(Effect.orDie)

    const stagingPath = (staged: StagedBlob): string => {
      if (!stagingId.test(staged.id)) throw new RangeError(`not a staging id: ${JSON.stringify(staged.id)}`)
      return join(uploads, staged.id)
    }

    const receive = <E>(content: Stream.Stream<Uint8Array, E>, maxSize: number) =>
      Effect.gen(function*() {
        const id = randomBytes(12).toString("hex")
        const path = join(uploads, id)
        // Runs when the caller's scope closes: after a placing rename there is nothing left to remove.
        yield* Effect.addFinalizer(() => Effect.promise(() => rm(path, { force: true })))
        const hashes = { md5: createHash("md5"), sha1: createHash("sha1"), sha256: createHash("sha256"), sha512: createHash("sha512") }
        const size = yield* Effect.acquireUseRelease(
          // The directory again: after a day idle, a start on another host may have reaped it.
          io("receive", () => mkdir(uploads, { recursive: true }).then(() => open(path, "wx"))),
          (handle) =>
            Effect.gen(function*() {
              let received = 0
              yield* Stream.runForEach(content, (chunk): Effect.Effect<void, BlobTooLarge | BlobStorageFailure> => {
                received += chunk.byteLength
                if (received > maxSize) return Effect.fail(new BlobTooLarge({ limit: maxSize }))
                for (const hash of Object.values(hashes)) hash.update(chunk)
                // One write at a time: the body is pulled no faster than the disk takes it.
                return io("receive", () => handle.write(chunk)).pipe(Effect.asVoid)
              })
              // On disk before anyone can see it: a crash after the placing rename leaves a whole file.
              yield* io("receive", () => handle.datasync())
              return received
            }),
          (handle) => Effect.promise(() => handle.close())
        )
        const staged: StagedBlob = {
          id,
          size,
          digests: { md5: hex(hashes.md5), sha1: hex(hashes.sha1), sha256: hex(hashes.sha256), sha512: hex(hashes.sha512) }
        }
        return staged
      })

    const place = (staged: StagedBlob, key: BlobKey) =>
      Effect.gen(function*() {
        const target = blobPath(root, key)
        yield* io("place", async () => {
          await mkdir(dirname(target), { recursive: true })
          await rename(stagingPath(staged), target)
        })
      })

    const nothingDetached: DetachedBlob = { purge: Effect.void, restore: Effect.void }

    const detach = (key: BlobKey) =>
      Effect.gen(function*() {
        const target = blobPath(root, key)
        const aside = join(trash, randomBytes(12).toString("hex"))
        const moved = yield* io("detach", () =>
          mkdir(trash, { recursive: true }).then(() => rename(target, aside)).then(() => true, (error: unknown) => {
            if (errorCode(error) === "ENOENT") return false
            throw error
          }))
        if (!moved) return nothingDetached
        const detached: DetachedBlob = {
          purge: Effect.promise(() => rm(aside, { force: true })),
          restore: io("restore", async () => {
            await mkdir(dirname(target), { recursive: true })
            await rename(aside, target)
          })
        }
        return detached
      })

    const read = (key: BlobKey) =>
      Effect.gen(function*() {
        const path = blobPath(root, key)
        const info = yield* Effect.tryPromise({ try: () => stat(path), catch: (error) => error }).pipe(
          Effect.catch((error) =>
            errorCode(error) === "ENOENT"
              ? Effect.fail(new NotFound({ message: `blob does not exist [${key.area}: ${key.name}]` }))
              : Effect.die(error))
        )
        return {
          size: info.size,
          stream: (range?: ByteRange) =>
            Stream.fromAsyncIterable(
              createReadStream(path, range === undefined ? {} : { start: range.start, end: range.end }),
              (error) => new BlobStorageFailure({ operation: "read", message: describe(error) })
            ).pipe(Stream.map((chunk): Uint8Array => chunk instanceof Uint8Array ? chunk : Buffer.from(String(chunk))))
        }
      })

    return BlobStorage.of({ receive, place, detach, read })
  })

export const BlobStorageLive = (root: string): Layer.Layer<BlobStorage> => Layer.effect(BlobStorage, makeBlobStorage(root))
