/**
 * Loads a DatabaseSnapshot into an empty database: the schema is built by Kiln's own migrations up
 * to the snapshot's version, the rows are inserted in foreign-key order, the sequences set, and
 * then the later migrations run on the restored rows. All of it is one transaction, so a restore
 * that fails leaves the database as empty as it found it.
 *
 * User triggers are disabled while rows go in: the snapshot already holds what they maintain (usage
 * totals, the search epoch), and firing them would count every size a second time. Disabling needs
 * only table ownership, which the restoring role has since it just created the tables. Foreign keys
 * and free-standing indexes are set aside and built again once every table is in
 * (DeferredStructure.ts), before the later migrations run.
 */
import { Effect, Schema, Stream } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Migrations from "../Migrations.ts"
import * as DeferredStructure from "./DeferredStructure.ts"
import { quoteIdentifier, type SequenceValue, tablesInLoadOrder, writableColumns } from "./DatabaseSnapshot.ts"

/** True when the `public` schema has no table yet (a database Kiln never ran on). */
export const isEmpty: Effect.Effect<boolean, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly tables: number }>`
    SELECT count(*)::int AS tables FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm')`
  return rows[0]?.tables === 0
})

/** The highest migration id the loader knows: the newest schema this Kiln can run. */
export const latestVersion = (loader: Migrations.Loader): Effect.Effect<number, Migrations.MigrationError> =>
  Effect.map(loader, (migrations) => Math.max(0, ...migrations.map(([id]) => id)))

const upTo = (loader: Migrations.Loader, version: number): Migrations.Loader =>
  Effect.map(loader, (migrations) => migrations.filter(([id]) => id <= version))

/** The snapshot names tables its own schema version does not have: not a dump of this schema. */
export class UnknownTables extends Schema.TaggedError<UnknownTables>()("UnknownTables", {
  tables: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `the dump has rows for tables its schema version does not define: ${this.tables.join(", ")}`
  }
}

export interface RestoreInput<E, R> {
  readonly loader: Migrations.Loader
  readonly schemaVersion: number
  /** The tables the snapshot has rows for. */
  readonly tables: ReadonlyArray<string>
  readonly sequences: ReadonlyArray<SequenceValue>
  /** The rows of a table as the snapshot wrote them (one JSON object per line), in batches. */
  readonly rows: (table: string) => Stream.Stream<ReadonlyArray<string>, E, R>
  /** Told after each batch, for progress. */
  readonly loaded?: (table: string, rows: number) => Effect.Effect<void>
}

export const restore = <E, R>(
  input: RestoreInput<E, R>
): Effect.Effect<void, E | SqlError.SqlError | Migrations.MigrationError | UnknownTables, R | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* Migrations.run(upTo(input.loader, input.schemaVersion))
      const tables = yield* tablesInLoadOrder
      const unknown = input.tables.filter((table) => !tables.includes(table))
      if (unknown.length > 0) return yield* new UnknownTables({ tables: unknown })
      // Migrations seed some rows (the search epoch's); the snapshot's replace them.
      if (tables.length > 0) yield* sql.unsafe(`TRUNCATE ${tables.map(quoteIdentifier).join(", ")}`)
      const rebuild = yield* DeferredStructure.setAside(tables)
      for (const table of tables) {
        const name = quoteIdentifier(table)
        const writable = yield* writableColumns(table)
        const columns = writable.map((column) => quoteIdentifier(column.name)).join(", ")
        // json_populate_recordset reads JSON's null as SQL's NULL: in a NOT NULL JSON column it can
        // only have been the JSON value.
        const values = writable.map((column) =>
          column.notNullJson === null
            ? `r.${quoteIdentifier(column.name)}`
            : `coalesce(r.${quoteIdentifier(column.name)}, 'null'::${column.notNullJson})`
        ).join(", ")
        yield* sql.unsafe(`ALTER TABLE ${name} DISABLE TRIGGER USER`)
        yield* Stream.runForEach(input.rows(table), (batch) =>
          Effect.gen(function*() {
            // One parse of the batch (json_populate_recordset): splitting it into elements first
            // and populating each from its text parsed every row twice.
            yield* sql.unsafe(
              `INSERT INTO ${name} (${columns}) SELECT ${values} FROM json_populate_recordset(NULL::${name}, $1::json) r`,
              [`[${batch.join(",")}]`]
            )
            if (input.loaded !== undefined) yield* input.loaded(table, batch.length)
          }))
        yield* sql.unsafe(`ALTER TABLE ${name} ENABLE TRIGGER USER`)
      }
      yield* rebuild
      for (const sequence of input.sequences) {
        yield* sequence.lastValue === null
          ? sql`SELECT setval(${quoteIdentifier(sequence.name)}::regclass, 1, false)`
          : sql`SELECT setval(${quoteIdentifier(sequence.name)}::regclass, ${sequence.lastValue}::bigint, true)`
      }
      // An older snapshot is brought up to this Kiln's schema, on its rows.
      yield* Migrations.run(input.loader)
    }))
  })
