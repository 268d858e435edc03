/**
 * A push's record in one statement (RepositoryStore.updateAfterPush) on a real database: written
 * only while the row is still the one the push found, by its owner's name and its own, and its
 * default branch stays; none otherwise, leaving the row as it was.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { RepositoryStore } from "@kiln/domain/repo/RepositoryStore"
import { newAccount, type User } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as RepositoryStoreSql from "../../src/stores/RepositoryStoreSql.ts"
import { int } from "../../src/stores/Rows.ts"
import * as UserStoreSql from "../../src/stores/UserStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const account = (name: string) =>
  Effect.flatMap(UserStore, (users) =>
    users.insert(newAccount({ name, kind: "individual", email: `${name}@example.com`, loginName: name, createdAt: 1 }), "")
      .pipe(Effect.orDie))

const repository = (owner: User, name: string, isEmpty: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: unknown }>`INSERT INTO repositories (owner_id, name, lower_name, default_branch,
        wiki_branch, is_private, is_empty, size, units, created_at, updated_at)
      VALUES (${owner.id}, ${name}, ${name.toLowerCase()}, 'main', 'main', false, ${isEmpty}, 7, '{}'::jsonb, 1, 1) RETURNING id`
      .pipe(Effect.orDie)
    return int(row?.id)
  })

const pushed = { size: 4096, isEmpty: false, updatedAt: 50 }

layer(RepositoryStoreSql.layer.pipe(
  Layer.provideMerge(UserStoreSql.layer),
  Layer.provideMerge(migrations.pipe(Layer.provideMerge(TestDatabase.layer)))
), { timeout: "120 seconds" })("RepositoryStore.updateAfterPush", (it) => {
  it.effect("writes a push's size, emptiness and time to the row the push found", () =>
    Effect.gen(function*() {
      const store = yield* RepositoryStore
      const owner = yield* account("Pusher")
      const id = yield* repository(owner, "Pushed", false)
      // Names as the push's URL had them: case does not matter, as for every lookup.
      const updated = yield* store.updateAfterPush(id, { owner: "pusher", name: "PUSHED" }, ["feature", "main"], pushed)
      assert.isTrue(Option.isSome(updated))
      assert.deepStrictEqual(Option.map(updated, (row) => [row.size, row.isEmpty, row.updatedAt, row.defaultBranch]), Option.some([4096, false, 50, "main"]))
      // A push that deleted every branch leaves it empty.
      const emptied = yield* store.updateAfterPush(id, { owner: "Pusher", name: "Pushed" }, [], { ...pushed, isEmpty: true })
      assert.deepStrictEqual(Option.map(emptied, (row) => row.isEmpty), Option.some(true))
    }))

  it.effect("an empty repository's push that keeps its default branch is written; one that must move it is not", () =>
    Effect.gen(function*() {
      const store = yield* RepositoryStore
      const owner = yield* account("first")
      const keeps = yield* repository(owner, "keeps", true)
      assert.isTrue(Option.isSome(yield* store.updateAfterPush(keeps, { owner: "first", name: "keeps" }, ["main", "other"], pushed)))
      const moves = yield* repository(owner, "moves", true)
      assert.isTrue(Option.isNone(yield* store.updateAfterPush(moves, { owner: "first", name: "moves" }, ["trunk"], pushed)))
      const row = Option.getOrUndefined(yield* store.findById(moves))
      assert.deepStrictEqual([row?.repository.size, row?.repository.isEmpty, row?.repository.updatedAt], [7, true, 1])
    }))

  it.effect("a row renamed, or whose owner was, since the push found it is left as it is", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* RepositoryStore
      const owner = yield* account("mover")
      const id = yield* repository(owner, "moving", false)
      yield* sql`UPDATE repositories SET name = 'moved', lower_name = 'moved' WHERE id = ${id}`.pipe(Effect.orDie)
      assert.isTrue(Option.isNone(yield* store.updateAfterPush(id, { owner: "mover", name: "moving" }, ["main"], pushed)))
      yield* sql`UPDATE users SET name = 'gone', lower_name = 'gone' WHERE id = ${owner.id}`.pipe(Effect.orDie)
      assert.isTrue(Option.isNone(yield* store.updateAfterPush(id, { owner: "mover", name: "moved" }, ["main"], pushed)))
      assert.isTrue(Option.isNone(yield* store.updateAfterPush(id + 1000, { owner: "gone", name: "moved" }, ["main"], pushed)))
      const row = Option.getOrUndefined(yield* store.findById(id))
      assert.deepStrictEqual([row?.repository.size, row?.repository.updatedAt], [7, 1])
      assert.isTrue(Option.isSome(yield* store.updateAfterPush(id, { owner: "gone", name: "moved" }, ["main"], pushed)))
    }))
})
