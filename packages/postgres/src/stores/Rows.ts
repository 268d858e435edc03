/** Postgres hands int8 columns back as strings; rows are mapped through these. */
export const int = (value: unknown): number => typeof value === "number" ? value : Number(value)

/** A `count(*)` or window total from the first row, 0 without rows. */
export const totalOf = (rows: ReadonlyArray<{ readonly total?: unknown }>): number =>
  rows.length === 0 ? 0 : int(rows[0]?.total)
