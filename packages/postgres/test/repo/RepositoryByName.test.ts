/**
 * Repositories found by name on a real database (PGlite, or Postgres with KILN_TEST_DATABASE_URL):
 * on the embedded database the row read is kept until the next commit that changes a table
 * (EmbeddedReadCache.ts), and what every commit changed shows at once; on a server every lookup
 * reads the database. On both, a repository whose rows are unchanged is the same object
 * (UnchangedRows.ts), and one changed is a new one.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { OwnedRepository } from "@kiln/domain/repo/Repository"
import { RepositoryStore } from "@kiln/domain/repo/RepositoryStore"
import { newAccount, type User } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as RepositoryStoreSql from "../../src/stores/RepositoryStoreSql.ts"
import { int } from "../../src/stores/Rows.ts"
import * as UserStoreSql from "../../src/stores/UserStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const embedded = process.env["KILN_TEST_DATABASE_URL"] === undefined

const account = (name: string) =>
  Effect.flatMap(UserStore, (users) =>
    users.insert(newAccount({ name, kind: "individual", email: `${name}@example.com`, loginName: name, createdAt: 1 }), "")
      .pipe(Effect.orDie))

const repository = (owner: User, name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: unknown }>`INSERT INTO repositories (owner_id, name, lower_name, default_branch,
        wiki_branch, is_private, units, created_at, updated_at)
      VALUES (${owner.id}, ${name}, ${name.toLowerCase()}, 'main', 'main', false, '{}'::jsonb, 1, 1) RETURNING id`.pipe(Effect.orDie)
    return int(row?.id)
  })

const find = (owner: string, name: string) =>
  Effect.flatMap(RepositoryStore, (store) => store.find(owner, name)).pipe(
    Effect.map((found): OwnedRepository | undefined => Option.getOrUndefined(found))
  )

layer(RepositoryStoreSql.layer.pipe(
  Layer.provideMerge(UserStoreSql.layer),
  Layer.provideMerge(migrations.pipe(Layer.provideMerge(TestDatabase.layer)))
), { timeout: "120 seconds" })("RepositoryStore.find", (it) => {
  it.effect("hands out the same object while the rows are unchanged, on the embedded database without reading them", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const owner = yield* account("keeper")
      yield* repository(owner, "Kept")
      const first = yield* find("keeper", "kept")
      const again = yield* find("KEEPER", "KEPT")
      assert.strictEqual(first?.repository.name, "Kept")
      assert.strictEqual(first, again)
      // Another table's commit: the embedded database reads the row again, and it is unchanged.
      yield* account("bystander")
      assert.strictEqual(yield* find("keeper", "kept"), first)
      // A change to the owner's row: a new object.
      yield* sql`UPDATE users SET location = 'elsewhere' WHERE id = ${owner.id}`.pipe(Effect.orDie)
      const moved = yield* find("keeper", "kept")
      assert.notStrictEqual(moved, first)
      assert.strictEqual(moved?.owner.location, "elsewhere")
      assert.strictEqual(yield* find("keeper", "kept"), moved)
      if (embedded) {
        // Without a commit in between, the embedded lookup did not even read the database.
        assert.strictEqual(yield* find("keeper", "kept"), moved)
      }
      // A name not found is kept as well.
      assert.isUndefined(yield* find("keeper", "absent"))
      yield* repository(owner, "absent")
      assert.strictEqual((yield* find("keeper", "absent"))?.repository.name, "absent")
    }))

  it.effect("shows every committed change at once, made through the store or not, to the row or its owner", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* RepositoryStore
      const owner = yield* account("changer")
      const id = yield* repository(owner, "changing")
      assert.isFalse((yield* find("changer", "changing"))?.repository.isPrivate)
      yield* store.update(id, { isPrivate: true }).pipe(Effect.orDie)
      assert.isTrue((yield* find("changer", "changing"))?.repository.isPrivate)
      yield* sql`UPDATE repositories SET description = 'raw' WHERE id = ${id}`.pipe(Effect.orDie)
      assert.strictEqual((yield* find("changer", "changing"))?.repository.description, "raw")
      yield* sql`UPDATE users SET full_name = 'Changed Owner' WHERE id = ${owner.id}`.pipe(Effect.orDie)
      assert.strictEqual((yield* find("changer", "changing"))?.owner.fullName, "Changed Owner")
      // Renamed away: the old name finds nothing, and a rolled-back rename changes nothing.
      yield* sql`UPDATE repositories SET name = 'moved', lower_name = 'moved' WHERE id = ${id}`.pipe(Effect.orDie)
      assert.isUndefined(yield* find("changer", "changing"))
      yield* sql`UPDATE repositories SET name = 'back', lower_name = 'back' WHERE id = ${id}`.pipe(
        Effect.andThen(Effect.fail("undo")),
        sql.withTransaction,
        Effect.ignore
      )
      assert.strictEqual((yield* find("changer", "moved"))?.repository.id, id)
    }))

  it.effect("inside a transaction, reads what the transaction wrote before it commits", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const owner = yield* account("inside")
      const id = yield* repository(owner, "written")
      assert.strictEqual((yield* find("inside", "written"))?.repository.description, "")
      const seen = yield* sql`UPDATE repositories SET description = 'uncommitted' WHERE id = ${id}`.pipe(
        Effect.andThen(find("inside", "written")),
        sql.withTransaction,
        Effect.orDie
      )
      assert.strictEqual(seen?.repository.description, "uncommitted")
      assert.strictEqual((yield* find("inside", "written"))?.repository.description, "uncommitted")
    }))

  it.effect("keeps nothing read inside a transaction: one that writes a row twice leaves one row version id for both", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const owner = yield* account("twice")
      const id = yield* repository(owner, "rewritten")
      const between = yield* sql`UPDATE repositories SET description = 'first' WHERE id = ${id}`.pipe(
        Effect.andThen(find("twice", "rewritten")),
        Effect.tap(() => sql`UPDATE repositories SET description = 'second' WHERE id = ${id}`),
        sql.withTransaction,
        Effect.orDie
      )
      assert.strictEqual(between?.repository.description, "first")
      assert.strictEqual((yield* find("twice", "rewritten"))?.repository.description, "second")
    }))
})
