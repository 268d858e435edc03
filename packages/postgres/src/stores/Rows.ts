/** Postgres hands int8 columns back as strings; rows are mapped through these. */
export const int = (value: unknown): number => typeof value === "number" ? value : Number(value)

/** A `count(*)` or window total from the first row, 0 without rows. */
export const totalOf = (rows: ReadonlyArray<{ readonly total?: unknown }>): number =>
  rows.length === 0 ? 0 : int(rows[0]?.total)

/** A text column of a row read as values. */
export const text = (value: unknown): string => typeof value === "string" ? value : String(value)

/** A boolean column of a row read as values. */
export const bool = (value: unknown): boolean => value === true

/**
 * The position of each of `columns` in a row read as values (`statement.values`), computed once.
 * Wide rows are read that way: the client builds a row object key by key, which V8 keeps as a
 * dictionary beyond 16 keys, slow to build and to read; for a page of 50 repositories with their
 * owners (58 columns) those objects cost more than everything else done with the rows.
 */
export const positionsOf = <const Column extends string>(columns: ReadonlyArray<Column>): { readonly [K in Column]: number } =>
  // Object.fromEntries builds an object with fast properties, read at constant positions.
  Object.fromEntries(columns.map((column, index) => [column, index])) as { readonly [K in Column]: number }
