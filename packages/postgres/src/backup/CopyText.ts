/**
 * The rows of a dump as COPY's text format has them (DatabaseSnapshot.ts): one line per row, fields
 * separated by tabs, `\N` for NULL, and backslash, newline, carriage return and tab escaped with a
 * backslash. A server restore (whose client has no COPY) turns each line into a JSON object for
 * `json_populate_recordset`, which reads every value through its type's input function, as COPY
 * does.
 */

/** The lines of a chunk of rows (each ends with a newline, so none is empty). */
export const lines = (chunk: Uint8Array): ReadonlyArray<string> => {
  const text = new TextDecoder().decode(chunk)
  const all = text.split("\n")
  if (all[all.length - 1] === "") all.pop()
  return all
}

const unescapes: Readonly<Record<string, string>> = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f", v: "\v" }

/** A field's value: `null` for `\N`, else the text with its escapes undone. */
export const fieldValue = (field: string): string | null =>
  field === "\\N" ? null : field.includes("\\") ? field.replace(/\\(.)/gs, (_, char: string) => unescapes[char] ?? char) : field

export interface LineColumn {
  readonly name: string
  /** A json or jsonb column: its text is JSON, which goes into the object as it is. */
  readonly json: boolean
}

/** One line as a JSON object of its columns' values; fails on a line with the wrong number of fields. */
export const lineToJson = (line: string, columns: ReadonlyArray<LineColumn>): string => {
  const fields = line.split("\t")
  if (fields.length !== columns.length) {
    throw new Error(`a row has ${fields.length} fields where its table has ${columns.length} columns`)
  }
  const members = columns.map((column, index) => {
    const value = fieldValue(fields[index] ?? "\\N")
    if (value === null) return `${JSON.stringify(column.name)}:null`
    // Parsed to be sure it is one JSON value (it then cannot add members), and kept as written:
    // re-serialized, numbers beyond 2^53 would lose digits.
    if (column.json) JSON.parse(value)
    return `${JSON.stringify(column.name)}:${column.json ? value : JSON.stringify(value)}`
  })
  return `{${members.join(",")}}`
}
