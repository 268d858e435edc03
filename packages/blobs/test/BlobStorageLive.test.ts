/** BlobStorageLive on a real temporary directory: staging, placing, reading, moving aside, limits. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { spawnSync } from "node:child_process"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { attachmentKey, packageBlobKey } from "@kiln/domain/release/BlobStorage"
import { blobPath, makeBlobStorage } from "../src/BlobStorageLive.ts"
import { owner, ownerTag } from "../src/ProcessWorkOwner.ts"

const chunked = (bytes: Uint8Array, size = 1000) =>
  Stream.fromIterable(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)))

const filesIn = (directory: string): Array<string> =>
  Fs.existsSync(directory) ? Fs.readdirSync(directory, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name) : []

const fresh = Effect.suspend(() => {
  const root = Fs.mkdtempSync(join(tmpdir(), "kiln-blobs-"))
  return Effect.map(makeBlobStorage(root), (storage) => ({ root, storage }))
})

const readAll = (stream: Stream.Stream<Uint8Array, unknown>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(Array.from(chunks)))

describe("BlobStorageLive", () => {
  it.effect("receives with the right size and digests, places, and reads back whole and by range", () =>
    Effect.gen(function*() {
      const { root, storage } = yield* fresh
      const content = randomBytes(10_000)
      const uuid = randomUUID()
      yield* Effect.scoped(Effect.gen(function*() {
        const staged = yield* storage.receive(chunked(content), 10_000)
        assert.strictEqual(staged.size, 10_000)
        for (const algorithm of ["md5", "sha1", "sha256", "sha512"] as const) {
          assert.strictEqual(staged.digests[algorithm], createHash(algorithm).update(content).digest("hex"))
        }
        yield* storage.place(staged, attachmentKey(uuid))
      }))
      assert.isTrue(Fs.existsSync(blobPath(root, attachmentKey(uuid))))
      assert.deepStrictEqual(filesIn(join(root, "tmp")), [])
      const read = yield* storage.read(attachmentKey(uuid))
      assert.strictEqual(read.size, 10_000)
      assert.deepStrictEqual(yield* readAll(read.stream()), content)
      assert.deepStrictEqual(yield* readAll(read.stream({ start: 9_000, end: 9_999 })), content.subarray(9_000))
      assert.strictEqual((yield* Effect.flip(storage.read(attachmentKey(randomUUID()))))._tag, "NotFound")
    }))

  it.effect("drops the staging file when the scope closes unplaced, the limit is passed, or the content fails", () =>
    Effect.gen(function*() {
      const { root, storage } = yield* fresh
      yield* Effect.scoped(storage.receive(chunked(randomBytes(500)), 500))
      const tooLarge = yield* Effect.scoped(Effect.flip(storage.receive(chunked(randomBytes(501)), 500)))
      assert.strictEqual(tooLarge._tag, "BlobTooLarge")
      const broken = Stream.concat(chunked(randomBytes(300)), Stream.fail("connection reset"))
      assert.strictEqual(yield* Effect.scoped(Effect.flip(storage.receive(broken, 1000))), "connection reset")
      // Interrupted while receiving (the body stalls mid-way): the finaliser still runs.
      const fiber = yield* Effect.forkChild(Effect.scoped(storage.receive(Stream.concat(chunked(randomBytes(100)), Stream.never), 1000)))
      while (filesIn(join(root, "tmp", ownerTag, "uploads")).length === 0) yield* TestClock.withLive(Effect.sleep("5 millis"))
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(filesIn(join(root, "tmp", ownerTag, "uploads")), [])
      assert.deepStrictEqual(filesIn(join(root, "attachments")), [])
    }))

  it.effect("moves a blob aside: restore puts it back, purge erases it; content-addressed placing replaces", () =>
    Effect.gen(function*() {
      const { root, storage } = yield* fresh
      const content = Buffer.from("package bytes")
      const key = packageBlobKey(createHash("sha256").update(content).digest("hex"))
      for (let copy = 0; copy < 2; copy++) {
        yield* Effect.scoped(Effect.flatMap(storage.receive(Stream.make(content), 100), (staged) => storage.place(staged, key)))
      }
      assert.strictEqual(filesIn(join(root, "packages")).length, 1)
      const aside = yield* storage.detach(key)
      assert.isFalse(Fs.existsSync(blobPath(root, key)))
      yield* aside.restore
      assert.deepStrictEqual(yield* readAll((yield* storage.read(key)).stream()), content)
      const again = yield* storage.detach(key)
      yield* again.purge
      assert.deepStrictEqual(filesIn(root), [])
      const nothing = yield* storage.detach(key)
      yield* nothing.purge
      yield* nothing.restore
      assert.isFalse(Fs.existsSync(blobPath(root, key)))
    }))

  it("refuses keys that are not UUIDs or SHA-256 digests", () => {
    assert.throws(() => blobPath("/x", { area: "attachments", name: "../../etc/passwd" }))
    assert.throws(() => blobPath("/x", { area: "packages", name: "abc" }))
  })

  it.effect("a start reaps the temporary directories of processes that are gone, never a live one's", () =>
    Effect.gen(function*() {
      const { root } = yield* fresh
      // A pid that was alive and is gone now; and one that is alive (this test's parent).
      const deadPid = spawnSync(process.execPath, ["-e", ""]).pid ?? 0
      const live = join(root, "tmp", `${owner.host}~${owner.scope}~${process.ppid}~0badc0de`)
      const dead = join(root, "tmp", `${owner.host}~${owner.scope}~${deadPid}~0badc0de`)
      const earlierInstance = join(root, "tmp", `${owner.host}~${owner.scope}~${process.pid}~0badc0de`)
      const otherHost = join(root, "tmp", `elsewhere~${deadPid}~0badc0de`)
      const legacy = join(root, "tmp", "uploads")
      for (const directory of [live, dead, earlierInstance, otherHost]) {
        Fs.mkdirSync(join(directory, "uploads"), { recursive: true })
        Fs.writeFileSync(join(directory, "uploads", "in-flight"), "bytes")
      }
      Fs.mkdirSync(legacy, { recursive: true })
      const stale = join(root, "tmp", `elsewhere~1~00000000`)
      Fs.mkdirSync(join(stale, "trash"), { recursive: true })
      const longAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000)
      for (const directory of [stale, join(stale, "trash")]) Fs.utimesSync(directory, longAgo, longAgo)

      yield* makeBlobStorage(root)
      const left = Fs.readdirSync(join(root, "tmp")).sort()
      // The live process's upload, another host's recent work and an unowned recent directory stay.
      assert.deepStrictEqual(left, [live, otherHost, legacy, join(root, "tmp", ownerTag)].map((path) => path.slice(join(root, "tmp").length + 1)).sort())
      assert.deepStrictEqual(filesIn(live), ["in-flight"])
    }))
})
