/**
 * What the contract cannot show about the SQL store: usage summed from the repositories table, per
 * owner and privacy, and concurrent writes meeting on the database (truly concurrent on Postgres
 * with KILN_TEST_DATABASE_URL; serialised by the bridge on PGlite). One database for the file: each
 * test uses names of its own.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import { emptyUsage } from "@kiln/domain/quota/Usage"
import { layer as migrations } from "../../src/migrations/index.ts"
import { int } from "../../src/stores/Rows.ts"
import * as QuotaStoreSql from "../../src/stores/QuotaStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const Database = migrations.pipe(Layer.provideMerge(TestDatabase.layer))

const account = (name: string, kind: "individual" | "organization" = "individual") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: unknown }>`INSERT INTO users (name, lower_name, kind, email, visibility, created_at, updated_at)
      VALUES (${name}, ${name.toLowerCase()}, ${kind}, ${`${name}@example.com`}, 'public', 0, 0) RETURNING id`
    return int(row?.id)
  })

const repository = (ownerId: number, name: string, size: number, isPrivate: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: unknown }>`INSERT INTO repositories
        (owner_id, name, lower_name, default_branch, wiki_branch, is_private, size, units, created_at, updated_at)
      VALUES (${ownerId}, ${name}, ${name.toLowerCase()}, 'main', 'main', ${isPrivate}, ${size}, '{}'::jsonb, 0, 0)
      RETURNING id`
    return int(row?.id)
  })

layer(QuotaStoreSql.layer.pipe(Layer.provideMerge(Database)), { timeout: "120 seconds" })("QuotaStoreSql on a database", (it) => {
  it.effect("sums repository sizes per owner and privacy, and follows deletions and size changes", () =>
    Effect.gen(function*() {
      const store = yield* QuotaStore
      const sql = yield* SqlClient.SqlClient
      const alice = yield* account("usage-alice")
      const org = yield* account("usage-org", "organization")
      yield* repository(alice, "one", 1000, false)
      const secret = yield* repository(alice, "two", 300, true)
      yield* repository(alice, "three", 20, false)
      yield* repository(org, "org-repo", 7, false)

      assert.deepStrictEqual(yield* store.usageOf(alice), { ...emptyUsage, reposPublic: 1020, reposPrivate: 300 })
      assert.deepStrictEqual(yield* store.usageOf(org), { ...emptyUsage, reposPublic: 7 })

      yield* sql`UPDATE repositories SET size = 5000 WHERE id = ${secret}`
      assert.strictEqual((yield* store.usageOf(alice)).reposPrivate, 5000)
      yield* sql`DELETE FROM repositories WHERE id = ${secret}`
      assert.deepStrictEqual(yield* store.usageOf(alice), { ...emptyUsage, reposPublic: 1020 })
    }))

  it.effect("sums sizes beyond 32 bits exactly", () =>
    Effect.gen(function*() {
      const store = yield* QuotaStore
      const owner = yield* account("usage-big")
      yield* repository(owner, "huge-a", 2 ** 40, false)
      yield* repository(owner, "huge-b", 2 ** 40 + 1, false)
      assert.strictEqual((yield* store.usageOf(owner)).reposPublic, 2 ** 41 + 1)
    }))

  it.effect("of concurrent additions of one user to a group exactly one succeeds", () =>
    Effect.gen(function*() {
      const store = yield* QuotaStore
      const user = yield* account("race-user")
      yield* store.createGroup({ name: "race-group", rules: [] })
      const exits = yield* Effect.all(
        Array.from({ length: 6 }, () => Effect.exit(store.addUserToGroup("race-group", user))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
      assert.deepStrictEqual(yield* store.listUsersInGroup("race-group"), [user])
    }))

  it.effect("of concurrent creations of one group exactly one succeeds, and the rules are made once", () =>
    Effect.gen(function*() {
      const store = yield* QuotaStore
      const exits = yield* Effect.all(
        Array.from({ length: 5 }, (_, index) =>
          Effect.exit(store.createGroup({
            name: "race-created",
            rules: [{ name: "race-rule", limit: index, subjects: ["size:all"] }]
          }))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
      const group = yield* store.getGroup("race-created")
      assert.strictEqual(group.rules.length, 1)
      assert.strictEqual((yield* store.listRules).filter((rule) => rule.name === "race-rule").length, 1)
    }))

  it.effect("concurrent replacements of a user's groups leave exactly one of the lists", () =>
    Effect.gen(function*() {
      const store = yield* QuotaStore
      const user = yield* account("race-setter")
      for (const name of ["set-1", "set-2", "set-3", "set-4"]) yield* store.createGroup({ name, rules: [] })
      const lists = [["set-1", "set-2"], ["set-3"], ["set-2", "set-4"], ["set-1", "set-3", "set-4"]]
      yield* Effect.all(lists.map((list) => store.setUserGroups(user, list)), { concurrency: "unbounded" })
      const names = (yield* store.groupsOf(user)).map((group) => group.name)
      assert.isTrue(lists.some((list) => JSON.stringify([...list].sort()) === JSON.stringify(names)), names.join(","))
    }))

  it.effect("deleting an account drops its group assignments", () =>
    Effect.gen(function*() {
      const store = yield* QuotaStore
      const sql = yield* SqlClient.SqlClient
      const user = yield* account("leaving-user")
      yield* store.createGroup({ name: "leaving-group", rules: [] })
      yield* store.addUserToGroup("leaving-group", user)
      yield* sql`DELETE FROM users WHERE id = ${user}`
      assert.deepStrictEqual(yield* store.listUsersInGroup("leaving-group"), [])
    }))
})
