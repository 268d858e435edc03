import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrations from "../src/Migrations.ts"
import * as TestDatabase from "../src/testing/TestDatabase.ts"

const tableExists = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ found: boolean }>`SELECT to_regclass(${name}) IS NOT NULL AS found`, ([row]) => row?.found === true))

/** Recorded migration ids; none when the Migrator's table does not even exist. */
const recorded = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  if (!(yield* tableExists("effect_sql_migrations"))) return []
  const rows = yield* sql<{ id: number }>`SELECT migration_id AS id FROM effect_sql_migrations ORDER BY migration_id`
  return rows.map((row) => row.id)
})

const createTable = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE ${sql(name)} (id int PRIMARY KEY)`)

describe("Migrations", () => {
  it.layer(TestDatabase.layer)((it) => {
    it.effect("a failing migration leaves no partial table and no recorded version", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const failing = Migrations.fromRecord({
          "1_first": createTable("first"),
          "2_second": Effect.gen(function*() {
            yield* createTable("second")
            yield* sql`INSERT INTO second VALUES (1)`
            yield* sql`SELECT * FROM no_such_table`
          })
        })
        const error = yield* Effect.flip(Migrations.run(failing))
        assert.strictEqual(error._tag, "MigrationError")
        assert.isFalse(yield* tableExists("first"))
        assert.isFalse(yield* tableExists("second"))
        assert.deepStrictEqual(yield* recorded, [])
      }))

    it.effect("applies pending migrations in order, once", () =>
      Effect.gen(function*() {
        const loader = Migrations.fromRecord({ "2_b": createTable("b"), "1_a": createTable("a") })
        assert.deepStrictEqual(yield* Migrations.run(loader), [[1, "a"], [2, "b"]])
        assert.deepStrictEqual(yield* Migrations.run(loader), [])
        const later = Migrations.fromRecord({ "1_a": createTable("a"), "2_b": createTable("b"), "3_c": createTable("c") })
        assert.deepStrictEqual(yield* Migrations.run(later), [[3, "c"]])
        assert.deepStrictEqual(yield* recorded, [1, 2, 3])
      }))
  })

  it.layer(TestDatabase.layer)((it) => {
    it.effect("a later failing migration keeps the earlier version and drops its own work", () =>
      Effect.gen(function*() {
        yield* Migrations.run(Migrations.fromRecord({ "1_d": createTable("d") }))
        const error = yield* Effect.flip(Migrations.run(Migrations.fromRecord({
          "1_d": createTable("d"),
          "2_e": Effect.andThen(createTable("e"), Effect.fail("no"))
        })))
        assert.strictEqual(error._tag, "MigrationError")
        assert.isTrue(yield* tableExists("d"))
        assert.isFalse(yield* tableExists("e"))
        assert.includeMembers(yield* recorded, [1])
        assert.notInclude(yield* recorded, 2)
      }))
  })

  // Two clients on one database stand in for two processes starting at once: on a server they are
  // separate sessions; on PGlite they share the one session through the bridge.
  it.layer(TestDatabase.layer)((it) => {
    it.effect("two clients migrating at once run each migration exactly once", () =>
      Effect.gen(function*() {
        const first = yield* PgClient.PgClient
        const second = Context.get(
          yield* Layer.build(PgClient.layer({ ...first.config, maxConnections: 1 })),
          SqlClient.SqlClient
        )
        const sql = yield* SqlClient.SqlClient
        const loader = Migrations.fromRecord({
          "1_slow": Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            // Slow enough that the other client arrives while this one is still migrating.
            yield* sql`SELECT pg_sleep(0.3)`
            yield* sql`CREATE TABLE runs (n int)`
          }),
          "2_count": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO runs VALUES (1)`)
        })
        const [a, b] = yield* Effect.all([
          Migrations.run(loader),
          Migrations.run(loader).pipe(Effect.provideService(SqlClient.SqlClient, second))
        ], { concurrency: 2 })
        assert.deepStrictEqual([...a, ...b], [[1, "slow"], [2, "count"]])
        assert.deepStrictEqual(yield* sql`SELECT count(*)::int AS n FROM runs`, [{ n: 1 }])
      }), { timeout: 60_000 })
  })
})
