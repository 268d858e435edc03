/**
 * A transaction-consistent copy of Kiln's tables without `pg_dump` (which neither the embedded
 * database nor every server host has): every table of the `public` schema read inside one
 * REPEATABLE READ transaction, so all tables, sequences and the schema version come from one
 * snapshot while writers go on. Each row is one line of COPY's text format, made by the database
 * itself in a plain SELECT (the client has no COPY): a fifth of the bytes of JSON rows, and an
 * embedded database loads it with COPY (DatabaseRestore.ts). Rows are read through a cursor in
 * batches, so memory stays flat whatever the table's size. The same SQL runs on PGlite and on a
 * PostgreSQL server.
 */
import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"

/** The Migrator's table: its rows are the schema version, not data. */
export const migrationsTable = "effect_sql_migrations"

const batchSize = 1000

export const quoteIdentifier = (name: string): string => `"${name.replaceAll("\"", "\"\"")}"`

export interface TableCount {
  readonly name: string
  readonly rows: number
  /** The columns of each row's fields, in order. */
  readonly columns: ReadonlyArray<string>
}

export interface SequenceValue {
  readonly name: string
  /** `null` while the sequence was never used. */
  readonly lastValue: string | null
}

export interface SnapshotContents {
  readonly schemaVersion: number
  /** In an order where each table comes after the tables its foreign keys point to. */
  readonly tables: ReadonlyArray<TableCount>
  readonly sequences: ReadonlyArray<SequenceValue>
}

/** Runs `effect` inside one read-only REPEATABLE READ transaction: every query sees one snapshot. */
export const inSnapshot = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError.SqlError, R | SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.andThen(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`, effect)))

/** The highest migration applied; 0 for a database Kiln never migrated. */
export const schemaVersion: Effect.Effect<number, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const exists = yield* sql<{ readonly found: boolean }>`SELECT to_regclass(${`public.${migrationsTable}`}) IS NOT NULL AS found`
  if (exists[0]?.found !== true) return 0
  const rows = yield* sql<{ readonly version: number | null }>`SELECT max(migration_id)::int AS version FROM ${sql(migrationsTable)}`
  return rows[0]?.version ?? 0
})

/** Tables of the `public` schema (the migrations' own excluded), parents before children. */
export const tablesInLoadOrder: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* sql<{ readonly name: string }>`
      SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> ${migrationsTable}
      ORDER BY c.relname`
    const edges = yield* sql<{ readonly child: string; readonly parent: string }>`
      SELECT ch.relname AS child, pa.relname AS parent
      FROM pg_constraint k
      JOIN pg_class ch ON ch.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid
      JOIN pg_namespace n ON n.oid = ch.relnamespace
      WHERE k.contype = 'f' AND n.nspname = 'public' AND ch.oid <> pa.oid`
    const parents = new Map<string, Set<string>>(tables.map((table) => [table.name, new Set<string>()]))
    for (const edge of edges) parents.get(edge.child)?.add(edge.parent)
    const ordered: Array<string> = []
    const placed = new Set<string>()
    const place = (name: string, path: ReadonlySet<string>) => {
      if (placed.has(name) || path.has(name)) return
      for (const parent of parents.get(name) ?? []) place(parent, new Set([...path, name]))
      placed.add(name)
      ordered.push(name)
    }
    for (const table of tables) place(table.name, new Set())
    return ordered
  }
)

/** A column the restore writes (generated ones are computed again). */
export interface WritableColumn {
  readonly name: string
  /** `json` or `jsonb` when the column has that type. */
  readonly json: "json" | "jsonb" | null
  readonly notNull: boolean
}

export const writableColumns = (table: string): Effect.Effect<ReadonlyArray<WritableColumn>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The catalog itself: information_schema.columns costs tens of milliseconds a table.
    const rows = yield* sql<{ readonly name: string; readonly json: "json" | "jsonb" | null; readonly notNull: boolean }>`
      SELECT a.attname AS name,
        CASE WHEN a.atttypid IN ('json'::regtype, 'jsonb'::regtype) THEN a.atttypid::regtype::text END AS json,
        a.attnotnull AS "notNull"
      FROM pg_attribute a
      WHERE a.attrelid = to_regclass(format('public.%I', ${table}::text)) AND a.attnum > 0
        AND NOT a.attisdropped AND a.attgenerated = ''
      ORDER BY a.attnum`
    return rows.map((row) => ({ name: row.name, json: row.json, notNull: row.notNull }))
  })

/**
 * A column's field as COPY's text format writes it: the value's text output with backslash,
 * newline, carriage return and tab escaped, and `\N` for NULL.
 */
const copyField = (column: string): string =>
  `coalesce(replace(replace(replace(replace(${quoteIdentifier(column)}::text, '\\', '\\\\'), E'\\n', '\\n'), E'\\r', '\\r'), E'\\t', '\\t'), '\\N')`

/** The SELECT list making one COPY text line of a row (without its newline). */
export const copyLine = (columns: ReadonlyArray<string>): string =>
  columns.length === 0 ? "''" : columns.map(copyField).join(" || E'\\t' || ")

/**
 * Writes every table's rows, each as one line of COPY's text format (without its newline), in
 * batches, and returns what was written. Run it inside `inSnapshot`.
 */
export const exportTables = <E, R>(
  write: (table: string, batch: ReadonlyArray<string>) => Effect.Effect<void, E, R>
): Effect.Effect<SnapshotContents, E | SqlError.SqlError, R | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Text output that reads back the same on any server: dates in ISO form, floats exact.
    yield* sql`SET LOCAL DateStyle = 'ISO, YMD'`
    yield* sql`SET LOCAL IntervalStyle = 'postgres'`
    yield* sql`SET LOCAL extra_float_digits = 1`
    const version = yield* schemaVersion
    const names = yield* tablesInLoadOrder
    const tables: Array<TableCount> = []
    for (const name of names) {
      const columns = (yield* writableColumns(name)).map((column) => column.name)
      const cursor = quoteIdentifier(`kiln_dump_${name}`)
      yield* sql.unsafe(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${copyLine(columns)} AS row FROM ${quoteIdentifier(name)}`)
      let rows = 0
      while (true) {
        const batch = yield* sql.unsafe<{ readonly row: string }>(`FETCH FORWARD ${batchSize} FROM ${cursor}`)
        if (batch.length === 0) break
        rows += batch.length
        yield* write(name, batch.map((entry) => entry.row))
        if (batch.length < batchSize) break
      }
      yield* sql.unsafe(`CLOSE ${cursor}`)
      tables.push({ name, rows, columns })
    }
    const sequences = yield* sql<{ readonly name: string; readonly lastValue: string | null }>`
      SELECT sequencename AS name, last_value::text AS "lastValue" FROM pg_sequences
      WHERE schemaname = 'public' ORDER BY sequencename`
    return { schemaVersion: version, tables, sequences: sequences.map((s) => ({ name: s.name, lastValue: s.lastValue })) }
  })
