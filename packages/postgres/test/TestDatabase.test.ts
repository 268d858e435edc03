import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as TestDatabase from "../src/testing/TestDatabase.ts"

const serverUrl = process.env["KILN_TEST_DATABASE_URL"] || undefined

const currentDatabase = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => Effect.map(sql<{ name: string }>`SELECT current_database() AS name`, ([row]) => row?.name ?? "")
)

describe("TestDatabase", () => {
  it.effect("each build is a database of its own", () =>
    Effect.gen(function*() {
      const first = Context.get(yield* Layer.build(TestDatabase.layer), SqlClient.SqlClient)
      const second = Context.get(yield* Layer.build(TestDatabase.layer), SqlClient.SqlClient)
      yield* first`CREATE TABLE only_in_first (id int)`
      assert.deepStrictEqual(yield* second`SELECT to_regclass('only_in_first') IS NULL AS absent`, [{ absent: true }])
    }))

  it.effect(`${serverUrl ? "on the server: a new kiln_t_ database, dropped afterwards" : "on PGlite: restored from the snapshot"}`, () =>
    Effect.gen(function*() {
      const name = yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(TestDatabase.layer)
        const name = yield* Effect.provide(currentDatabase, context)
        const sql = Context.get(context, SqlClient.SqlClient)
        assert.deepStrictEqual(yield* sql`SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'`, [{ n: 1 }])
        return name
      }))
      if (serverUrl === undefined) {
        assert.strictEqual(name, "postgres")
        return
      }
      assert.match(name, /^kiln_t_[0-9a-f]{16}$/)
      const admin = Context.get(yield* Layer.build(TestDatabase.adminLayer(Redacted.make(serverUrl))), SqlClient.SqlClient)
      assert.deepStrictEqual(yield* admin`SELECT count(*)::int AS n FROM pg_database WHERE datname = ${name}`, [{ n: 0 }])
    }))
})
