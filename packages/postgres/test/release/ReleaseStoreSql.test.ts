/**
 * ReleaseStoreSql and the release part of the quota queries on a real database (PGlite, or a
 * Postgres server with KILN_TEST_DATABASE_URL): tag uniqueness, list filters and order, details,
 * cascades, and usage/list sums per repository owner.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import type { NewRelease } from "@kiln/domain/release/Release"
import { ReleaseStore } from "@kiln/domain/release/ReleaseStore"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as QuotaStoreSql from "../../src/stores/QuotaStoreSql.ts"
import * as ReleaseStoreSql from "../../src/stores/ReleaseStoreSql.ts"
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

const repository = (ownerId: number, name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: unknown }>`INSERT INTO repositories
        (owner_id, name, lower_name, default_branch, wiki_branch, units, created_at, updated_at)
      VALUES (${ownerId}, ${name}, ${name.toLowerCase()}, 'main', 'main', '{}'::jsonb, 0, 0) RETURNING id`
    return int(row?.id)
  })

const release = (repoId: number, publisherId: number, tagName: string, extra: Partial<NewRelease> = {}): NewRelease => ({
  repoId,
  publisherId,
  tagName,
  target: "main",
  title: "",
  note: "",
  sha1: "",
  isDraft: false,
  isPrerelease: false,
  hideArchiveLinks: false,
  createdAt: 100,
  ...extra
})

const Stores = Layer.mergeAll(ReleaseStoreSql.layer, QuotaStoreSql.layer)

layer(Stores.pipe(Layer.provideMerge(Database)), { timeout: "120 seconds" })("ReleaseStoreSql", (it) => {
  it.effect("keeps tags unique per repository, case-insensitively, on insert and rename", () =>
    Effect.gen(function*() {
      const store = yield* ReleaseStore
      const owner = yield* account("tags-owner")
      const repo = yield* repository(owner, "app")
      const other = yield* repository(owner, "other")
      const first = yield* store.insert(release(repo, owner, "v1"))
      assert.strictEqual((yield* Effect.flip(store.insert(release(repo, owner, "V1"))))._tag, "AlreadyExists")
      yield* store.insert(release(other, owner, "v1"))
      const second = yield* store.insert(release(repo, owner, "v2"))
      assert.strictEqual((yield* Effect.flip(store.update(second.id, { tagName: "v1" })))._tag, "AlreadyExists")
      const renamed = yield* store.update(second.id, { tagName: "v3", isDraft: true, title: "t" })
      assert.deepStrictEqual([renamed.tagName, renamed.isDraft, renamed.title], ["v3", true, "t"])
      assert.deepStrictEqual(Option.map(yield* store.findByTag(repo, "V3"), (r) => r.id), Option.some(second.id))
      assert.isTrue(Option.isNone(yield* store.find(other, first.id)))
    }))

  it.effect("lists newest first with the draft, pre-release and keyword filters and a true total", () =>
    Effect.gen(function*() {
      const store = yield* ReleaseStore
      const owner = yield* account("list-owner")
      const repo = yield* repository(owner, "app")
      yield* store.insert(release(repo, owner, "v1", { createdAt: 10, title: "First 100%" }))
      yield* store.insert(release(repo, owner, "v2", { createdAt: 20, isDraft: true }))
      yield* store.insert(release(repo, owner, "v3", { createdAt: 30, isPrerelease: true, note: "the_notes" }))
      const tags = (filter: Parameters<typeof store.list>[1], page = { page: 1, limit: 30 }) =>
        Effect.map(store.list(repo, filter, page), (result) => [result.items.map((r) => r.tagName), result.total])
      assert.deepStrictEqual(yield* tags({ includeDrafts: true, keyword: "" }), [["v3", "v2", "v1"], 3])
      assert.deepStrictEqual(yield* tags({ includeDrafts: false, keyword: "" }), [["v3", "v1"], 2])
      assert.deepStrictEqual(yield* tags({ includeDrafts: true, isDraft: true, keyword: "" }), [["v2"], 1])
      assert.deepStrictEqual(yield* tags({ includeDrafts: false, isPrerelease: false, keyword: "" }), [["v1"], 1])
      // LIKE wildcards in the keyword are plain characters.
      assert.deepStrictEqual(yield* tags({ includeDrafts: true, keyword: "100%" }), [["v1"], 1])
      assert.deepStrictEqual(yield* tags({ includeDrafts: true, keyword: "E_N" }), [["v3"], 1])
      assert.deepStrictEqual(yield* tags({ includeDrafts: true, keyword: "%" }), [["v1"], 1])
      assert.deepStrictEqual(yield* tags({ includeDrafts: true, keyword: "" }, { page: 2, limit: 2 }), [["v1"], 3])
      assert.deepStrictEqual(yield* tags({ includeDrafts: true, keyword: "" }, { page: 5, limit: 2 }), [[], 3])
    }))

  it.effect("gives details with the publisher (none once deleted) and attachments by name; removal cascades", () =>
    Effect.gen(function*() {
      const store = yield* ReleaseStore
      const sql = yield* SqlClient.SqlClient
      const owner = yield* account("details-owner")
      const gone = yield* account("details-gone")
      const repo = yield* repository(owner, "app")
      const kept = yield* store.insert(release(repo, owner, "v1"))
      const orphan = yield* store.insert(release(repo, gone, "v2"))
      const attach = (releaseId: number, name: string, size: number) =>
        store.insertAttachment({ repoId: repo, releaseId, uploaderId: owner, name, size, sha256: "00", externalUrl: "", createdAt: 1 })
      const b = yield* attach(kept.id, "b.bin", 10)
      const a = yield* attach(kept.id, "a.bin", 20)
      yield* sql`DELETE FROM users WHERE id = ${gone}`
      const details = yield* store.details([orphan, kept])
      assert.deepStrictEqual(details.map((d) => [d.release.tagName, d.publisher?.name, d.attachments.map((x) => x.name)]), [
        ["v2", undefined, []],
        ["v1", "details-owner", ["a.bin", "b.bin"]]
      ])
      assert.match(a.uuid, /^[0-9a-f-]{36}$/)
      assert.deepStrictEqual(Option.map(yield* store.findAttachmentByUuid(a.uuid.toUpperCase()), (x) => x.id), Option.some(a.id))
      assert.isTrue(Option.isNone(yield* store.findAttachmentByUuid("not-a-uuid")))
      yield* store.countDownload(a.id)
      assert.deepStrictEqual(Option.map(yield* store.findAttachment(a.id), (x) => x.downloadCount), Option.some(1))
      const removed = yield* store.remove(kept.id)
      assert.deepStrictEqual(removed.map((x) => x.id).sort(), [a.id, b.id].sort())
      assert.isTrue(Option.isNone(yield* store.findAttachment(b.id)))
    }))

  it.effect("sums release attachments toward the repository's owner and lists them biggest first", () =>
    Effect.gen(function*() {
      const store = yield* ReleaseStore
      const quota = yield* QuotaStore
      const alice = yield* account("usage-alice")
      const bob = yield* account("usage-bob")
      const repo = yield* repository(alice, "app")
      const rel = yield* store.insert(release(repo, bob, "v1"))
      const attach = (name: string, size: number) =>
        store.insertAttachment({ repoId: repo, releaseId: rel.id, uploaderId: bob, name, size, sha256: "00", externalUrl: "", createdAt: 1 })
      yield* attach("small", 2 ** 33)
      yield* attach("big", 2 ** 34)
      // Uploaded by bob, counted for alice, who owns the repository.
      assert.strictEqual((yield* quota.usageOf(alice)).attachmentsReleases, 2 ** 33 + 2 ** 34)
      assert.strictEqual((yield* quota.usageOf(bob)).attachmentsReleases, 0)
      const page = yield* quota.listAttachments(alice, { page: 1, limit: 1 })
      assert.strictEqual(page.total, 2)
      assert.deepStrictEqual(page.items.map((item) => [item.name, item.size]), [["big", 2 ** 34]])
      const past = yield* quota.listAttachments(alice, { page: 3, limit: 1 })
      assert.deepStrictEqual(past, { items: [], total: 2 })
    }))
})
