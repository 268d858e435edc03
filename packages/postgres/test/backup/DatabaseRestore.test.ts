/**
 * DatabaseRestore on its own: the indexes and foreign keys it sets aside while rows go in come back
 * exactly as the migrations made them, a JSON null in a NOT NULL JSON column stays the JSON value,
 * values COPY's text format must escape come back as they were (by COPY into an embedded database,
 * through JSON on a server), and a row whose foreign key dangles fails the whole load, leaving the
 * database empty.
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
  readonly tables: ReadonlyArray<DatabaseSnapshot.TableCount>
  readonly sequences: ReadonlyArray<DatabaseSnapshot.SequenceValue>
  readonly rows: ReadonlyMap<string, ReadonlyArray<string>>
}

/** Text COPY's format escapes or could mistake: separators, escapes, its NULL marker, non-ASCII. */
const awkward = "tab\there\nnewline\r\\ back\\slash \\N \\t ünï ☃ \"quoted\" {a,b}"

/** A migrated database with an account, its repository (units a JSON null) and what it looks like. */
const source = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Migrations.run(loader)
  yield* sql`INSERT INTO users (name, lower_name, email, kind, visibility, created_at, updated_at)
    VALUES ('Ann', 'ann', 'ann@example.com', 'individual', 'public', 1, 1)`
  yield* sql`INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, units, created_at, updated_at)
    SELECT id, 'Tools', 'tools', 'main', 'master', 'null'::jsonb, 1, 1 FROM users WHERE lower_name = 'ann'`
  yield* sql`INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, units, description, created_at, updated_at)
    SELECT id, 'Odd', 'odd', 'main', 'master', ${JSON.stringify({ big: "BIG", text: awkward })}::jsonb, ${awkward}, 1, 1
    FROM users WHERE lower_name = 'ann'`
  yield* sql`UPDATE repositories SET units = replace(units::text, '"BIG"', '123456789012345678901')::jsonb WHERE lower_name = 'odd'`
  yield* sql`INSERT INTO quota_rules (name, "limit", subjects) VALUES (${awkward}, 9007199254740993, ${["size:all", awkward, "NULL"]})`
  const rows = new Map<string, Array<string>>()
  const contents = yield* DatabaseSnapshot.inSnapshot(DatabaseSnapshot.exportTables((table, batch) =>
    Effect.sync(() => {
      rows.set(table, [...(rows.get(table) ?? []), ...batch])
    })))
  return {
    exported: {
      schemaVersion: contents.schemaVersion,
      tables: contents.tables,
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
    tables: exported.tables.map((table) => table.name),
    sequences: exported.sequences,
    format: {
      _tag: "copy",
      columns: (table) => exported.tables.find((candidate) => candidate.name === table)?.columns ?? []
    },
    rows: (table) => {
      const lines = rows(table)
      return lines.length === 0 ? Stream.empty : Stream.make(new TextEncoder().encode(`${lines.join("\n")}\n`))
    }
  })

/** Every row of the tables the test writes odd values to, as the server prints them. */
const oddRows = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    repositories: yield* sql`SELECT lower_name, description, units::text AS units FROM repositories ORDER BY id`,
    rules: yield* sql`SELECT name, "limit"::text AS "limit", subjects FROM quota_rules ORDER BY name`
  }
})

describe("DatabaseRestore", () => {
  it.live("builds the indexes and foreign keys it set aside as the migrations made them, and keeps a JSON null", () =>
    Effect.gen(function*() {
      const { exported, structure: expected } = yield* source
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* load(exported, (table) => exported.rows.get(table) ?? [])
        assert.deepStrictEqual(yield* structure, expected)
        const units = yield* sql<{ readonly kind: string }>`SELECT jsonb_typeof(units) AS kind FROM repositories WHERE lower_name = 'tools'`
        assert.deepStrictEqual(units.map((row) => row.kind), ["null"])
      }).pipe(Effect.provide(Layer.fresh(TestDatabase.layer)))
    }), { timeout: 60_000 })

  it.live("brings back text, arrays, big numbers and JSON exactly, whatever characters they hold", () =>
    Effect.gen(function*() {
      const { exported } = yield* source
      const restored = yield* Effect.gen(function*() {
        yield* load(exported, (table) => exported.rows.get(table) ?? [])
        return yield* oddRows
      }).pipe(Effect.provide(Layer.fresh(TestDatabase.layer)))
      assert.strictEqual(restored.repositories.length, 2)
      const odd = restored.repositories.find((row) => row["lower_name"] === "odd")
      assert.strictEqual(odd?.["description"], awkward)
      assert.strictEqual(JSON.parse(String(odd?.["units"])).text, awkward)
      assert.include(String(odd?.["units"]), "123456789012345678901")
      assert.deepStrictEqual(restored.rules, [{ name: awkward, limit: "9007199254740993", subjects: ["size:all", awkward, "NULL"] }])
    }), { timeout: 60_000 })

  it.live("still loads rows written as JSON lines (dumps of format 1)", () =>
    Effect.gen(function*() {
      const { exported } = yield* source
      // The source again, its rows as format 1 wrote them.
      const jsonRows = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* load(exported, (table) => exported.rows.get(table) ?? [])
        const rows = new Map<string, ReadonlyArray<string>>()
        for (const table of exported.tables) {
          const lines = yield* sql.unsafe<{ readonly row: string }>(`SELECT row_to_json(t)::text AS row FROM ${DatabaseSnapshot.quoteIdentifier(table.name)} t`)
          rows.set(table.name, lines.map((line) => line.row))
        }
        return rows
      }).pipe(Effect.provide(Layer.fresh(TestDatabase.layer)))
      const restored = yield* Effect.gen(function*() {
        yield* DatabaseRestore.restore({
          loader,
          schemaVersion: exported.schemaVersion,
          tables: exported.tables.map((table) => table.name),
          sequences: exported.sequences,
          format: { _tag: "json" },
          rows: (table) => {
            const lines = jsonRows.get(table) ?? []
            return lines.length === 0 ? Stream.empty : Stream.make(new TextEncoder().encode(`${lines.join("\n")}\n`))
          }
        })
        return yield* oddRows
      }).pipe(Effect.provide(Layer.fresh(TestDatabase.layer)))
      assert.strictEqual(restored.repositories.find((row) => row["lower_name"] === "odd")?.["description"], awkward)
      assert.deepStrictEqual(restored.rules, [{ name: awkward, limit: "9007199254740993", subjects: ["size:all", awkward, "NULL"] }])
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
