/** Forgejo's timestamps: RFC 3339 with seconds precision, in UTC (the server zone here). */
export const rfc3339 = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")

/** A never-set Go `time.Time`. */
export const ZERO_TIME = "0001-01-01T00:00:00Z"
