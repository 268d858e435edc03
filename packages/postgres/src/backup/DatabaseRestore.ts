/**
 * Loads a DatabaseSnapshot into an empty database: the schema is built by Kiln's own migrations up
 * to the snapshot's version, the rows are inserted in foreign-key order (with COPY into an embedded
 * database, through `json_populate_recordset` on a server), the sequences set, and
 * then the later migrations run on the restored rows. All of it is one transaction, so a restore
 * that fails leaves the database as empty as it found it.
 *
 * User triggers are disabled while rows go in: the snapshot already holds what they maintain (usage
 * totals, the search epoch), and firing them would count every size a second time. Disabling needs
 * only table ownership, which the restoring role has since it just created the tables. Foreign keys
 * and free-standing indexes are set aside and built again once every table is in
 * (DeferredStructure.ts), before the later migrations run.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Option, Schema, Stream } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { createExtensions } from "../Extensions.ts"
import * as Migrations from "../Migrations.ts"
import * as PgliteBridge from "../PgliteBridge.ts"
import * as CopyText from "./CopyText.ts"
import * as DeferredStructure from "./DeferredStructure.ts"
import { quoteIdentifier, schemaVersion, type SequenceValue, tablesInLoadOrder, writableColumns } from "./DatabaseSnapshot.ts"

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

/** The snapshot names columns its schema version does not have for a table. */
export class UnknownColumns extends Schema.TaggedError<UnknownColumns>()("UnknownColumns", {
  table: Schema.String,
  columns: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `the dump has columns its schema version does not define in ${this.table}: ${this.columns.join(", ")}`
  }
}

/**
 * How the snapshot's rows are written: `copy`, lines of COPY's text format whose fields are the
 * columns `columns` names (DatabaseSnapshot.ts); `json`, one JSON object per line (dumps of
 * format 1).
 */
export type RowFormat =
  | { readonly _tag: "copy"; readonly columns: (table: string) => ReadonlyArray<string> }
  | { readonly _tag: "json" }

export interface RestoreInput<E, R> {
  readonly loader: Migrations.Loader
  readonly schemaVersion: number
  /** The tables the snapshot has rows for. */
  readonly tables: ReadonlyArray<string>
  readonly sequences: ReadonlyArray<SequenceValue>
  readonly format: RowFormat
  /**
   * The database was made for this restore from Kiln's migrated template (Database.Template): its
   * schema is the current one and holds no data. Kept when the snapshot's schema is the same
   * (its migrations are then done); replaced when it is older.
   */
  readonly fresh?: boolean
  /** The rows of a table as the snapshot wrote them, in chunks of whole lines. */
  readonly rows: (table: string) => Stream.Stream<Uint8Array, E, R>
}

/** Chunks for one COPY into an embedded database: large enough that statements cost nothing, small enough to hold. */
const copyChunkBytes = 8 * 1024 * 1024

const copyFailed = (cause: unknown) =>
  new SqlError.SqlError({
    reason: new SqlError.UnknownError({ cause, message: cause instanceof Error ? cause.message : String(cause), operation: "copy" })
  })

export const restore = <E, R>(
  input: RestoreInput<E, R>
): Effect.Effect<
  void,
  E | SqlError.SqlError | Migrations.MigrationError | UnknownTables | UnknownColumns,
  R | SqlClient.SqlClient
> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // An embedded database takes COPY text as it is; a server's rows go through JSON (no COPY in the client).
    const embedded = Option.flatMap(
      yield* Effect.serviceOption(PgClient.PgClient),
      (pg) => Option.fromNullishOr(PgliteBridge.embeddedOf(pg.config.stream))
    )
    yield* sql.withTransaction(Effect.gen(function*() {
      if (input.fresh === true && (yield* schemaVersion) !== input.schemaVersion) {
        yield* sql.unsafe("DROP SCHEMA public CASCADE")
        yield* sql.unsafe("CREATE SCHEMA public")
        // It lived in the schema just dropped.
        yield* sql.unsafe(createExtensions)
      }
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
        // json_populate_recordset reads JSON's null as SQL's NULL: in a NOT NULL JSON column it can
        // only have been the JSON value.
        const values = writable.map((column) =>
          column.json === null || !column.notNull
            ? `r.${quoteIdentifier(column.name)}`
            : `coalesce(r.${quoteIdentifier(column.name)}, 'null'::${column.json})`
        ).join(", ")
        const insertJson = (objects: ReadonlyArray<string>) =>
          sql.unsafe(
            `INSERT INTO ${name} (${writable.map((column) => quoteIdentifier(column.name)).join(", ")}) SELECT ${values} FROM json_populate_recordset(NULL::${name}, $1::json) r`,
            [`[${objects.join(",")}]`]
          )
        yield* sql.unsafe(`ALTER TABLE ${name} DISABLE TRIGGER USER`)
        if (input.format._tag === "json") {
          // One parse of the batch (json_populate_recordset): splitting it into elements first
          // and populating each from its text parsed every row twice.
          yield* Stream.runForEach(input.rows(table), (chunk) => insertJson(CopyText.lines(chunk)))
        } else {
          const dumped = input.format.columns(table)
          const columns = dumped.map((column) => writable.find((candidate) => candidate.name === column))
          const missing = dumped.filter((_, index) => columns[index] === undefined)
          if (missing.length > 0) return yield* new UnknownColumns({ table, columns: missing })
          if (Option.isSome(embedded)) {
            const db = embedded.value
            const copy = `COPY ${name} (${dumped.map(quoteIdentifier).join(", ")}) FROM '/dev/blob'`
            const load = (chunks: ReadonlyArray<Uint8Array>) =>
              chunks.length === 0 ? Effect.void : Effect.asVoid(Effect.tryPromise({
                try: () => db.query(copy, [], { blob: new Blob(chunks.map((chunk) => new Uint8Array(chunk))) }),
                catch: copyFailed
              }))
            let pending: Array<Uint8Array> = []
            let pendingBytes = 0
            yield* Stream.runForEach(input.rows(table), (chunk) => {
              pending.push(chunk)
              pendingBytes += chunk.byteLength
              if (pendingBytes < copyChunkBytes) return Effect.void
              const full = pending
              pending = []
              pendingBytes = 0
              return load(full)
            })
            yield* load(pending)
          } else {
            const lineColumns = columns.flatMap((column) => column === undefined ? [] : [{ name: column.name, json: column.json !== null }])
            yield* Stream.runForEach(input.rows(table), (chunk) =>
              Effect.flatMap(
                Effect.try({
                  try: () => CopyText.lines(chunk).map((line) => CopyText.lineToJson(line, lineColumns)),
                  catch: copyFailed
                }),
                insertJson
              ))
          }
        }
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
