/**
 * PackageStoreSql and the package part of the quota queries on a real database: shared blobs,
 * duplicate files, orphaned blobs on deletion, empty versions and packages going away, listing,
 * and usage by package owner or by the owner of a linked repository.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { NewPackageFile } from "@kiln/domain/package/Package"
import { PackageStore } from "@kiln/domain/package/PackageStore"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as PackageStoreSql from "../../src/stores/PackageStoreSql.ts"
import * as QuotaStoreSql from "../../src/stores/QuotaStoreSql.ts"
import { int } from "../../src/stores/Rows.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const Database = migrations.pipe(Layer.provideMerge(TestDatabase.layer))

const account = (name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: unknown }>`INSERT INTO users (name, lower_name, kind, email, visibility, created_at, updated_at)
      VALUES (${name}, ${name.toLowerCase()}, 'individual', ${`${name}@example.com`}, 'public', 0, 0) RETURNING id`
    return int(row?.id)
  })

const digest = (seed: string) => ({
  md5: seed.padEnd(32, "0"),
  sha1: seed.padEnd(40, "0"),
  sha256: seed.padEnd(64, "0"),
  sha512: seed.padEnd(128, "0")
})

const file = (ownerId: number, name: string, version: string, fileName: string, seed: string, size: number): NewPackageFile => ({
  ownerId,
  creatorId: ownerId,
  type: "generic",
  name,
  version,
  fileName,
  blob: { size, digests: digest(seed) },
  createdAt: 1
})

const Stores = Layer.mergeAll(PackageStoreSql.layer, QuotaStoreSql.layer)

layer(Stores.pipe(Layer.provideMerge(Database)), { timeout: "120 seconds" })("PackageStoreSql", (it) => {
  it.effect("shares blobs between files, refuses duplicate names, and reports orphaned blobs on deletion", () =>
    Effect.gen(function*() {
      const store = yield* PackageStore
      const owner = yield* account("blob-owner")
      const first = yield* store.addFile(file(owner, "Lib", "1.0", "a.bin", "aa", 10))
      assert.isTrue(first.newBlob)
      const shared = yield* store.addFile(file(owner, "lib", "1.0", "b.bin", "aa", 10))
      assert.isFalse(shared.newBlob)
      assert.strictEqual((yield* Effect.flip(store.addFile(file(owner, "LIB", "1.0", "A.BIN", "bb", 5))))._tag, "AlreadyExists")
      const at = { ownerId: owner, type: "generic" as const, name: "lib", version: "1.0" }
      assert.deepStrictEqual(Option.map(yield* store.findFile(at, "A.bin"), (f) => [f.name, f.blob.size]), Option.some(["a.bin", 10]))
      assert.deepStrictEqual(yield* store.removeFile(at, "a.bin"), Option.none())
      assert.deepStrictEqual(yield* store.removeFile(at, "b.bin"), Option.some(digest("aa").sha256))
      // The version went with its last file, and the package with its last version.
      assert.strictEqual((yield* Effect.flip(store.removeFile(at, "b.bin"))).message, "package does not exist")
      const sql = yield* SqlClient.SqlClient
      const [left] = yield* sql<{ packages: unknown; blobs: unknown }>`SELECT
        (SELECT count(*) FROM packages WHERE owner_id = ${owner}) AS packages,
        (SELECT count(*) FROM package_blobs WHERE hash_sha256 = ${digest("aa").sha256}) AS blobs`
      assert.deepStrictEqual([int(left?.packages), int(left?.blobs)], [0, 0])
    }))

  it.effect("removes a whole version and keeps blobs other versions still use", () =>
    Effect.gen(function*() {
      const store = yield* PackageStore
      const owner = yield* account("version-owner")
      yield* store.addFile(file(owner, "tool", "1", "x.bin", "c1", 1))
      yield* store.addFile(file(owner, "tool", "1", "y.bin", "c2", 2))
      yield* store.addFile(file(owner, "tool", "2", "y.bin", "c2", 2))
      const orphans = yield* store.removeVersion({ ownerId: owner, type: "generic", name: "TOOL", version: "1" })
      assert.deepStrictEqual(orphans, [digest("c1").sha256])
      const missing = yield* Effect.flip(store.removeVersion({ ownerId: owner, type: "generic", name: "tool", version: "1" }))
      assert.strictEqual(missing._tag, "NotFound")
      const listed = yield* store.listVersions(owner, { keyword: "" }, { page: 1, limit: 30 })
      assert.deepStrictEqual(listed.items.map((v) => [v.name, v.version, v.owner.name, v.creator?.name]), [["tool", "2", "version-owner", "version-owner"]])
      assert.strictEqual(listed.total, 1)
      const none = yield* store.listVersions(owner, { keyword: "zzz" }, { page: 1, limit: 30 })
      assert.deepStrictEqual(none, { items: [], total: 0 })
    }))

  it.effect("counts packages for their owner, or for the owner of the repository they are linked to", () =>
    Effect.gen(function*() {
      const store = yield* PackageStore
      const quota = yield* QuotaStore
      const sql = yield* SqlClient.SqlClient
      const alice = yield* account("pkg-usage-alice")
      const bob = yield* account("pkg-usage-bob")
      yield* store.addFile(file(alice, "a", "1", "f", "d1", 2 ** 33))
      yield* store.addFile(file(alice, "a", "1", "g", "d2", 7))
      yield* store.addFile(file(bob, "b", "1", "f", "d3", 100))
      assert.strictEqual((yield* quota.usageOf(alice)).packages, 2 ** 33 + 7)
      assert.strictEqual((yield* quota.usageOf(bob)).packages, 100)
      // Bob's package linked to a repository of alice's counts for alice.
      const [repo] = yield* sql<{ id: unknown }>`INSERT INTO repositories
          (owner_id, name, lower_name, default_branch, wiki_branch, units, created_at, updated_at)
        VALUES (${alice}, 'linked', 'linked', 'main', 'main', '{}'::jsonb, 0, 0) RETURNING id`
      yield* sql`UPDATE packages SET repo_id = ${int(repo?.id)} WHERE owner_id = ${bob}`
      assert.strictEqual((yield* quota.usageOf(alice)).packages, 2 ** 33 + 107)
      assert.strictEqual((yield* quota.usageOf(bob)).packages, 0)
      const listed = yield* quota.listPackages(alice, { page: 1, limit: 30 })
      assert.deepStrictEqual(listed.items.map((item) => [item.owner, item.name, item.size]), [
        ["pkg-usage-alice", "a", 2 ** 33 + 7],
        ["pkg-usage-bob", "b", 100]
      ])
      assert.strictEqual(listed.total, 2)
    }))
})
