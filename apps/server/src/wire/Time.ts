/** Two digits, for the parts of a timestamp. */
const pad2 = (value: number): string => value < 10 ? `0${value}` : `${value}`

/**
 * Forgejo's timestamps: RFC 3339 with seconds precision, in UTC (the server zone here). Built from
 * the date's UTC fields: `toISOString` and cutting its milliseconds cost twice as much, and a page of
 * 50 repositories formats 200 of them. Years outside 1000-9999 (which `toISOString` writes with
 * a sign or six digits) and fractional seconds still go through it.
 */
export const rfc3339 = (unixSeconds: number): string => {
  const date = new Date(unixSeconds * 1000)
  const year = date.getUTCFullYear()
  if (year < 1000 || year > 9999 || !Number.isInteger(unixSeconds)) return date.toISOString().replace(/\.\d{3}Z$/, "Z")
  return `${year}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}T${pad2(date.getUTCHours())}:${
    pad2(date.getUTCMinutes())
  }:${pad2(date.getUTCSeconds())}Z`
}

/** A never-set Go `time.Time`. */
export const ZERO_TIME = "0001-01-01T00:00:00Z"
