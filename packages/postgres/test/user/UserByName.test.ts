/**
 * Accounts found by name on a real database (PGlite, or Postgres with KILN_TEST_DATABASE_URL): the
 * same object while the row is unchanged (UnchangedRows.ts), a new one once any change committed,
 * made through the store or not, and nothing read inside a transaction is handed out later.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { newAccount, type User } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as UserStoreSql from "../../src/stores/UserStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const account = (name: string) =>
  Effect.flatMap(UserStore, (users) =>
    users.insert(newAccount({ name, kind: "individual", email: `${name}@example.com`, loginName: name, createdAt: 1 }), "")
      .pipe(Effect.orDie))

const find = (name: string) =>
  Effect.flatMap(UserStore, (users) => users.findByName(name)).pipe(Effect.map((found): User | undefined => Option.getOrUndefined(found)))

layer(UserStoreSql.layer.pipe(Layer.provideMerge(migrations.pipe(Layer.provideMerge(TestDatabase.layer)))), {
  timeout: "120 seconds"
})("UserStore.findByName", (it) => {
  it.effect("hands out the same object while the row is unchanged, and a new one for every committed change", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* UserStore
      const made = yield* account("Keeper")
      const first = yield* find("keeper")
      assert.strictEqual(first?.name, "Keeper")
      assert.strictEqual(yield* find("KEEPER"), first)
      // Another row's change leaves this one as it was.
      yield* account("bystander")
      assert.strictEqual(yield* find("keeper"), first)

      const updated = yield* store.update(made.id, { fullName: "Kept Keeper" }).pipe(Effect.orDie)
      assert.strictEqual(updated.fullName, "Kept Keeper")
      const afterUpdate = yield* find("keeper")
      assert.notStrictEqual(afterUpdate, first)
      assert.strictEqual(afterUpdate?.fullName, "Kept Keeper")
      assert.strictEqual(yield* find("keeper"), afterUpdate)

      yield* sql`UPDATE users SET is_admin = true WHERE id = ${made.id}`.pipe(Effect.orDie)
      const promoted = yield* find("keeper")
      assert.notStrictEqual(promoted, afterUpdate)
      assert.isTrue(promoted?.isAdmin)
      // Written with the same values again: a new row version all the same, so a new object.
      yield* sql`UPDATE users SET is_admin = true WHERE id = ${made.id}`.pipe(Effect.orDie)
      assert.notStrictEqual(yield* find("keeper"), promoted)
      assert.isUndefined(yield* find("nobody"))
    }))

  it.effect("keeps nothing read inside a transaction: one that writes a row twice leaves one row version id for both", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const made = yield* account("twice")
      const between = yield* sql`UPDATE users SET location = 'first' WHERE id = ${made.id}`.pipe(
        Effect.andThen(find("twice")),
        Effect.tap(() => sql`UPDATE users SET location = 'second' WHERE id = ${made.id}`),
        sql.withTransaction,
        Effect.orDie
      )
      assert.strictEqual(between?.location, "first")
      assert.strictEqual((yield* find("twice"))?.location, "second")
    }))
})
