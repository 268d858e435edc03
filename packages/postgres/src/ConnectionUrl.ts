/** Reading and adjusting `postgres://` URLs. */
import { Redacted } from "effect"

/**
 * The user and database to pass explicitly when the URL leaves them out. The driver would fall
 * back to `$USER`, which is unset in containers and services; like libpq, the database defaults to
 * the user's name.
 */
export const defaultNames = (url: Redacted.Redacted<string>): { username?: string; database?: string } => {
  let parsed: URL
  try {
    parsed = new URL(Redacted.value(url))
  } catch {
    // The driver reports a malformed URL with a better message than we could.
    return {}
  }
  const user = parsed.username === "" ? "postgres" : decodeURIComponent(parsed.username)
  return {
    ...(parsed.username === "" ? { username: user } : {}),
    ...(parsed.pathname.replace(/^\//, "") === "" ? { database: user } : {})
  }
}

/** The same server and credentials, another database. */
export const withDatabase = (url: Redacted.Redacted<string>, database: string): Redacted.Redacted<string> => {
  const parsed = new URL(Redacted.value(url))
  parsed.pathname = `/${encodeURIComponent(database)}`
  if (parsed.username === "") parsed.username = "postgres"
  return Redacted.make(parsed.toString())
}
