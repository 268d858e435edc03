/**
 * The branch table and the commit status table on a real database (PGlite, or Postgres with
 * KILN_TEST_DATABASE_URL): order, upserts, replacement, per-commit numbering under concurrent
 * inserts, sorts and filters, and the latest status per context against the domain's rule.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as fc from "fast-check"
import type { Branch } from "@kiln/domain/git/Branch"
import { BranchStore } from "@kiln/domain/git/BranchStore"
import { latestPerContext } from "@kiln/domain/git/CommitStatus"
import { CommitStatusStore } from "@kiln/domain/git/CommitStatusStore"
import { pageRequest } from "@kiln/domain/Paging"
import { notSigned, verifiedBy } from "@kiln/domain/signing/CommitVerification"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as BranchStoreSql from "../../src/stores/BranchStoreSql.ts"
import * as CommitStatusStoreSql from "../../src/stores/CommitStatusStoreSql.ts"
import { int } from "../../src/stores/Rows.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const Database = migrations.pipe(Layer.provideMerge(TestDatabase.layer))
const Stores = Layer.mergeAll(BranchStoreSql.layer, CommitStatusStoreSql.layer).pipe(Layer.provideMerge(Database))

let repositories = 0
const repository = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const n = ++repositories
  const [owner] = yield* sql<{ id: unknown }>`INSERT INTO users (name, lower_name, kind, email, visibility, created_at, updated_at)
    VALUES (${`owner-${n}`}, ${`owner-${n}`}, 'individual', ${`owner-${n}@example.com`}, 'public', 0, 0) RETURNING id`
  const [row] = yield* sql<{ id: unknown }>`INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, units, created_at, updated_at)
    VALUES (${int(owner?.id)}, ${`repo-${n}`}, ${`repo-${n}`}, 'main', 'main', '{}'::jsonb, 0, 0) RETURNING id`
  return int(row?.id)
})

const branch = (name: string, seconds: number, offsetMinutes = 0): Branch => ({
  name,
  commitId: name.padEnd(40, "0").slice(0, 40),
  message: `commit on ${name}\n`,
  author: { name: "Ada", email: "ada@example.com", when: { seconds: seconds - 5, offsetMinutes } },
  committer: { name: "Cy", email: "cy@example.com", when: { seconds, offsetMinutes: -offsetMinutes } },
  verification: notSigned
})

const sha = "a".repeat(40)

layer(Stores, { timeout: "120 seconds" })("git stores on a database", (it) => {
  it.effect("lists branches by latest commit then name, paged, and keeps every field", () =>
    Effect.gen(function*() {
      const store = yield* BranchStore
      const id = yield* repository
      const signed: Branch = {
        ...branch("signed", 50, 120),
        verification: verifiedBy({ name: "Kiln", email: "k@example.com", keyId: "ABCD", fingerprint: "F" }, "abcd", {
          payload: "tree x\n\nm\n",
          signature: "-----BEGIN PGP SIGNATURE-----\n"
        })
      }
      yield* store.replaceAll(id, [branch("b", 10), branch("a", 10), branch("Z", 10), branch("new", 99), signed])
      const first = yield* store.list(id, pageRequest(1, 2))
      assert.strictEqual(first.total, 5)
      assert.deepStrictEqual(first.items.map((b) => b.name), ["new", "signed"])
      const second = yield* store.list(id, pageRequest(2, 2))
      assert.deepStrictEqual(second.items.map((b) => b.name), ["Z", "a"])
      assert.deepStrictEqual((yield* store.list(id, pageRequest(9, 2))).items, [])
      assert.deepStrictEqual(yield* store.find(id, "signed"), Option.some(signed))
      assert.isTrue(Option.isNone(yield* store.find(id, "missing")))
    }))

  it.effect("replaces a branch under its name, forgets removed ones, and keeps repositories apart", () =>
    Effect.gen(function*() {
      const store = yield* BranchStore
      const one = yield* repository
      const two = yield* repository
      assert.isFalse(yield* store.hasAny(one))
      const put = (...branches: ReadonlyArray<Branch>) => ({ put: branches, remove: [] })
      yield* store.record(one, put(branch("main", 1)), false)
      yield* store.record(one, put(branch("main", 7), branch("other", 2)), false)
      yield* store.record(two, put(branch("main", 3)), false)
      assert.strictEqual(Option.map(yield* store.find(one, "main"), (b) => b.committer.when.seconds).pipe(Option.getOrElse(() => 0)), 7)
      // Put and removed at once: the put one replaced, the removed ones gone, one never there ignored.
      yield* store.record(one, { put: [branch("main", 9)], remove: ["other", "never-there"] }, false)
      assert.deepStrictEqual((yield* store.list(one, pageRequest(1, 50))).items.map((b) => [b.name, b.committer.when.seconds]), [["main", 9]])
      yield* store.record(one, { put: [], remove: ["main", "never-there"] }, false)
      yield* store.record(one, { put: [], remove: [] }, false)
      assert.isFalse(yield* store.hasAny(one))
      assert.isTrue(yield* store.hasAny(two))
      // More rows than one statement takes.
      yield* store.record(one, put(...Array.from({ length: 1_100 }, (_, i) => branch(`p-${i}`, i))), false)
      assert.strictEqual((yield* store.list(one, pageRequest(1, 50))).total, 1_100)
      const many = Array.from({ length: 1_200 }, (_, i) => branch(`b-${i}`, i))
      yield* store.replaceAll(one, many)
      assert.strictEqual((yield* store.list(one, pageRequest(1, 50))).total, 1_200)
      yield* store.replaceAll(one, [])
      assert.isFalse(yield* store.hasAny(one))
    }))

  it.effect("marks a table as possibly behind git, telling a mark left behind from a fresh one", () =>
    Effect.gen(function*() {
      const store = yield* BranchStore
      const one = yield* repository
      const two = yield* repository
      assert.deepStrictEqual(yield* store.markPending(one), { leftBehind: false, hasAny: false })
      assert.isTrue((yield* store.syncState(one)).pending)
      assert.isFalse((yield* store.syncState(two)).pending)
      // A section that never cleared its mark: the next one finds it.
      assert.deepStrictEqual(yield* store.markPending(one), { leftBehind: true, hasAny: false })
      assert.include(yield* store.pending(), one)
      yield* store.clearPending(one)
      assert.isFalse((yield* store.syncState(one)).pending)
      // The mark reads whether the table holds any branch of that repository alone.
      yield* store.record(one, { put: [branch("main", 100)], remove: [] }, false)
      assert.deepStrictEqual(yield* store.markPending(one), { leftBehind: false, hasAny: true })
      assert.deepStrictEqual(yield* store.markPending(two), { leftBehind: false, hasAny: false })
      // A record that clears the mark does so with its branches, and only its repository's.
      yield* store.record(one, { put: [branch("main", 101)], remove: [] }, true)
      assert.deepStrictEqual(yield* store.syncState(one), { hasAny: true, pending: false })
      assert.isTrue((yield* store.syncState(two)).pending)
      yield* store.record(two, { put: [], remove: [] }, true)
      assert.isFalse((yield* store.syncState(two)).pending)
      yield* store.markPending(two)
      yield* store.record(two, { put: Array.from({ length: 1_100 }, (_, i) => branch(`p-${i}`, i)), remove: ["p-0"] }, true)
      assert.deepStrictEqual(yield* store.syncState(two), { hasAny: true, pending: false })
      assert.strictEqual((yield* store.list(two, pageRequest(1, 50))).total, 1_099)
    }))

  it.effect("numbers statuses per commit from 1, also when inserted concurrently", () =>
    Effect.gen(function*() {
      const store = yield* CommitStatusStore
      const id = yield* repository
      const status = (context: string) => ({
        repositoryId: id, sha, state: "success", targetUrl: "", description: "", context, creatorId: 1, createdAt: 100
      })
      const created = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => `ctx-${i}`), (context) => store.insert(status(context)), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(created.map((s) => s.index).sort((a, b) => a - b), Array.from({ length: 12 }, (_, i) => i + 1))
      const other = yield* store.insert({ ...status("x"), sha: "b".repeat(40) })
      assert.strictEqual(other.index, 1)
    }))

  it.effect("lists statuses with Forgejo's sorts, the state filter and paging", () =>
    Effect.gen(function*() {
      const store = yield* CommitStatusStore
      const id = yield* repository
      for (const [state, createdAt] of [["pending", 10], ["success", 30], ["failure", 20], ["success", 30]] as const) {
        yield* store.insert({ repositoryId: id, sha, state, targetUrl: "", description: "", context: "ci", creatorId: 1, createdAt })
      }
      const indexes = (sort: Parameters<typeof store.list>[2]["sort"], state?: "success") =>
        Effect.map(store.list(id, sha, { sort, state, page: pageRequest(1, 50) }), (page) => page.items.map((s) => s.index))
      assert.deepStrictEqual(yield* indexes("newest"), [4, 2, 3, 1])
      assert.deepStrictEqual(yield* indexes("oldest"), [1, 3, 2, 4])
      assert.deepStrictEqual(yield* indexes("leastindex"), [4, 3, 2, 1])
      assert.deepStrictEqual(yield* indexes("highestindex"), [1, 2, 3, 4])
      assert.deepStrictEqual(yield* indexes("newest", "success"), [4, 2])
      const paged = yield* store.list(id, sha, { sort: "highestindex", page: pageRequest(2, 3) })
      assert.deepStrictEqual(paged.items.map((s) => s.index), [4])
      assert.strictEqual(paged.total, 4)
    }))

  it.effect("gives the latest status of each context as latestPerContext does, paged over contexts", () =>
    Effect.gen(function*() {
      const store = yield* CommitStatusStore
      const samples = fc.sample(fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { minLength: 1, maxLength: 25 }), { numRuns: 8, seed: 42 })
      for (const contexts of samples) {
        const id = yield* repository
        for (const context of contexts) {
          yield* store.insert({ repositoryId: id, sha, state: "pending", targetUrl: "", description: "", context, creatorId: 1, createdAt: 1 })
        }
        const all = (yield* store.list(id, sha, { sort: "highestindex", page: pageRequest(1, 50) })).items
        const expected = latestPerContext(all)
        const latest = yield* store.latest(id, sha, pageRequest(1, 50))
        assert.deepStrictEqual(latest.items, expected)
        assert.strictEqual(latest.total, new Set(contexts).size)
        // Pages take the contexts whose latest status is newest first; each page is in index order.
        const byRecency = [...expected].sort((a, b) => b.index - a.index)
        const firstTwo = yield* store.latest(id, sha, pageRequest(1, 2))
        assert.deepStrictEqual(firstTwo.items, byRecency.slice(0, 2).sort((a, b) => a.index - b.index))
      }
      assert.deepStrictEqual(yield* store.latest(999_999, sha, pageRequest(1, 10)), { items: [], total: 0 })
    }))

  it.effect("tells contexts apart whole, however long, found by their hash (never grouped by their text)", () =>
    Effect.gen(function*() {
      const store = yield* CommitStatusStore
      const id = yield* repository
      const long = "x".repeat(300_000)
      const contexts = [`${long}1`, `${long}2`, `${long}1`, "ünïcode", "unicode", "ünïcode"]
      for (const context of contexts) {
        yield* store.insert({ repositoryId: id, sha, state: "success", targetUrl: "", description: "", context, creatorId: 1, createdAt: 1 })
      }
      const all = (yield* store.list(id, sha, { sort: "highestindex", page: pageRequest(1, 50) })).items
      const latest = yield* store.latest(id, sha, pageRequest(1, 50))
      assert.deepStrictEqual(latest.items, latestPerContext(all))
      assert.deepStrictEqual(latest.items.map((status) => status.index), [2, 3, 5, 6])
      assert.strictEqual(latest.total, 4)
    }))
})
