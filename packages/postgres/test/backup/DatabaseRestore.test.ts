/**
 * DatabaseRestore on its own: the indexes and foreign keys it sets aside while rows go in come back
 * exactly as the migrations made them, a JSON null in a NOT NULL JSON column stays the JSON value,
 * and a row whose foreign key dangles fails the whole load, leaving the database empty.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql"
import * as DatabaseRestore from "../../src/backup/DatabaseRestore.ts"
import * as DatabaseSnapshot from "../../src/backup/DatabaseSnapshot.ts"
import * as Migrations from "../../src/Migrations.ts"
import { loader } from "../../src/migrations/index.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

/** Indexes and constraints of the `public` schema as the server prints them. */
const structure = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const indexes = yield* sql<{ readonly definition: string }>`
    SELECT pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' ORDER BY c.relname`
  const constraints = yield* sql<{ readonly definition: string }>`
    SELECT t.relname || '.' || k.conname || ': ' || pg_get_constraintdef(k.oid) || ' ' || k.convalidated AS definition
    FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' ORDER BY t.relname, k.conname`
  return { indexes: indexes.map((row) => row.definition), constraints: constraints.map((row) => row.definition) }
})

interface Exported {
  readonly schemaVersion: number
  readonly tables: ReadonlyArray<string>
  readonly sequences: ReadonlyArray<DatabaseSnapshot.SequenceValue>
  readonly rows: ReadonlyMap<string, ReadonlyArray<string>>
}

/** A migrated database with an account, its repository (units a JSON null) and what it looks like. */
const source = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Migrations.run(loader)
  yield* sql`INSERT INTO users (name, lower_name, email, kind, visibility, created_at, updated_at)
    VALUES ('Ann', 'ann', 'ann@example.com', 'individual', 'public', 1, 1)`
  yield* sql`INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, units, created_at, updated_at)
    SELECT id, 'Tools', 'tools', 'main', 'master', 'null'::jsonb, 1, 1 FROM users WHERE lower_name = 'ann'`
  const rows = new Map<string, Array<string>>()
  const contents = yield* DatabaseSnapshot.inSnapshot(DatabaseSnapshot.exportTables((table, batch) =>
    Effect.sync(() => {
      rows.set(table, [...(rows.get(table) ?? []), ...batch])
    })))
  return {
    exported: {
      schemaVersion: contents.schemaVersion,
      tables: contents.tables.map((table) => table.name),
      sequences: contents.sequences,
      rows
    } satisfies Exported,
    structure: yield* structure
  }
}).pipe(Effect.provide(Layer.fresh(TestDatabase.layer)))

const load = (exported: Exported, rows: (table: string) => ReadonlyArray<string>) =>
  DatabaseRestore.restore({
    loader,
    schemaVersion: exported.schemaVersion,
    tables: exported.tables,
    sequences: exported.sequences,
    rows: (table) => Stream.make(rows(table))
  })

describe("DatabaseRestore", () => {
  it.live("builds the indexes and foreign keys it set aside as the migrations made them, and keeps a JSON null", () =>
    Effect.gen(function*() {
      const { exported, structure: expected } = yield* source
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* load(exported, (table) => exported.rows.get(table) ?? [])
        assert.deepStrictEqual(yield* structure, expected)
        const units = yield* sql<{ readonly kind: string }>`SELECT jsonb_typeof(units) AS kind FROM repositories`
        assert.deepStrictEqual(units.map((row) => row.kind), ["null"])
      }).pipe(Effect.provide(Layer.fresh(TestDatabase.layer)))
    }), { timeout: 60_000 })

  it.live("fails on a dangling foreign key and leaves the database empty", () =>
    Effect.gen(function*() {
      const { exported } = yield* source
      yield* Effect.gen(function*() {
        const failed = yield* Effect.flip(load(exported, (table) => table === "users" ? [] : exported.rows.get(table) ?? []))
        assert.strictEqual(failed._tag, "SqlError")
        assert.isTrue(yield* DatabaseRestore.isEmpty)
      }).pipe(Effect.provide(Layer.fresh(TestDatabase.layer)))
    }), { timeout: 60_000 })
})
