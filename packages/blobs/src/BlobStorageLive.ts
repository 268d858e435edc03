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
import { createReadStream, type ReadStream } from "node:fs"
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
  type ReceivedDigests,
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

/** Bytes gathered before one write to a staging file. */
const WRITE_SIZE = 256 * 1024
/**
 * Bytes read from a stored file at once: twice Node's 64 KiB. A 200 MB LFS download (bench, with
 * ProcessFlags' heap setting): 64 KiB 0.9–1.1× a bare Node server, 128 KiB 1.3–1.5×, 1 MiB about
 * the same as 128 KiB but the server's resident memory grew by 65–70 MB meanwhile, against 45 MB.
 */
const READ_SIZE = 128 * 1024
/** Bytes written between two background flushes of a staging file. */
const FLUSH_SIZE = 16 * 1024 * 1024

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

/** Destroys a file stream and waits until its descriptor is closed (at once if it already is). */
const closeFile = (file: ReadStream) =>
  Effect.callback<void>((resume) => {
    if (file.closed) return resume(Effect.void)
    file.once("close", () => resume(Effect.void))
    file.destroy()
  })

/**
 * A stored file's bytes. The file is opened only when the stream runs, never when it is made, and
 * closed when the run ends, fails or is interrupted: a response that is never sent (HEAD, headers
 * Node refuses, a client gone before the body) drops its stream unrun, and the HTTP server only
 * cancels raw Node streams, so a file opened up front stayed open for good.
 */
const readFile = (path: string, range: ByteRange | undefined): Stream.Stream<Uint8Array, BlobStorageFailure> =>
  Stream.unwrap(
    Effect.acquireRelease(
      Effect.sync(() =>
        createReadStream(path, { highWaterMark: READ_SIZE, ...(range === undefined ? {} : { start: range.start, end: range.end }) })
      ),
      closeFile
    ).pipe(Effect.map((file) =>
      Stream.fromAsyncIterable(file, (error) => new BlobStorageFailure({ operation: "read", message: describe(error) }))
    ))
  ).pipe(Stream.map((chunk): Uint8Array => chunk instanceof Uint8Array ? chunk : Buffer.from(String(chunk))))

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

    const receive = <E>(content: Stream.Stream<Uint8Array, E>, maxSize: number, digests: ReceivedDigests = "all") =>
      Effect.gen(function*() {
        const id = randomBytes(12).toString("hex")
        const path = join(uploads, id)
        // Runs when the caller's scope closes: after a placing rename there is nothing left to remove.
        yield* Effect.addFinalizer(() => Effect.promise(() => rm(path, { force: true })))
        const sha256 = createHash("sha256")
        const others = digests === "all" ? { md5: createHash("md5"), sha1: createHash("sha1"), sha512: createHash("sha512") } : undefined
        const hashes = others === undefined ? [sha256] : [sha256, others.md5, others.sha1, others.sha512]
        const size = yield* Effect.acquireUseRelease(
          // The directory again: after a day idle, a start on another host may have reaped it.
          io("receive", () => mkdir(uploads, { recursive: true }).then(() => open(path, "wx"))),
          (handle) =>
            Effect.gen(function*() {
              let received = 0
              // Chunks are gathered into writes of WRITE_SIZE (a 200 MB body comes in ~3,000
              // chunks of 64 KiB); each write is hashed while the disk takes it.
              let pending: Array<Uint8Array> = []
              let pendingBytes = 0
              // Written bytes are flushed along the way (one flush at a time, not awaited), so
              // that the flush before the placing rename finds little left to write.
              let flushing: Promise<void> | undefined
              let unflushed = 0
              const write = (chunks: ReadonlyArray<Uint8Array>, bytes: number) =>
                io("receive", async () => {
                  // Written as they came: a concatenated copy doubled the memory a large upload
                  // passes through, which the garbage collector then has to reclaim.
                  const written = handle.writev(chunks)
                  for (const chunk of chunks) for (const hash of hashes) hash.update(chunk)
                  // One writev may take less than all (a disk nearly full): the rest is written
                  // until done or failed, never skipped.
                  let done = (await written).bytesWritten
                  if (done < bytes) {
                    const rest = Buffer.concat(chunks, bytes)
                    while (done < bytes) done += (await handle.write(rest, done, bytes - done)).bytesWritten
                  }
                  unflushed += bytes
                  if (unflushed >= FLUSH_SIZE && flushing === undefined) {
                    unflushed = 0
                    flushing = handle.datasync().finally(() => {
                      flushing = undefined
                    })
                  }
                })
              yield* Stream.runForEach(content, (chunk): Effect.Effect<void, BlobTooLarge | BlobStorageFailure> => {
                received += chunk.byteLength
                if (received > maxSize) return Effect.fail(new BlobTooLarge({ limit: maxSize }))
                pending.push(chunk)
                pendingBytes += chunk.byteLength
                if (pendingBytes < WRITE_SIZE) return Effect.void
                const chunks = pending
                const bytes = pendingBytes
                pending = []
                pendingBytes = 0
                // One write at a time: the body is pulled no faster than the disk takes it.
                return write(chunks, bytes)
              })
              if (pendingBytes > 0) yield* write(pending, pendingBytes)
              // On disk before anyone can see it: a crash after the placing rename leaves a whole file.
              yield* io("receive", async () => {
                await flushing
                await handle.datasync()
              })
              return received
            }),
          (handle) => Effect.promise(() => handle.close())
        )
        const staged: StagedBlob = {
          id,
          size,
          digests: others === undefined
            ? { md5: "", sha1: "", sha256: hex(sha256), sha512: "" }
            : { md5: hex(others.md5), sha1: hex(others.sha1), sha256: hex(sha256), sha512: hex(others.sha512) }
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
        return { size: info.size, stream: (range?: ByteRange) => readFile(path, range) }
      })

    return BlobStorage.of({ receive, place, detach, read })
  })

export const BlobStorageLive = (root: string): Layer.Layer<BlobStorage> => Layer.effect(BlobStorage, makeBlobStorage(root))
