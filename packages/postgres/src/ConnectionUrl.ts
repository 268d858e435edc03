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

/** Where a connection to the server goes: a TCP host and port, or a Unix socket's path. */
export type SocketTarget =
  | { readonly _tag: "Tcp"; readonly host: string; readonly port: number }
  | { readonly _tag: "Unix"; readonly path: string }

const portOf = (text: string): number | undefined => {
  const port = Number(text)
  return /^[0-9]+$/.test(text) && port >= 1 && port <= 65_535 ? port : undefined
}

/**
 * Where the driver (sql-pg) connects for `url`, by its rules: the authority's host and port,
 * `?host=` and `?port=` over them, `localhost:5432` by default, and a host starting with `/` a
 * directory holding the server's Unix socket. Undefined for a URL the driver refuses (it reports
 * that better).
 */
export const socketTarget = (url: Redacted.Redacted<string>): SocketTarget | undefined => {
  let parsed: URL
  try {
    parsed = new URL(Redacted.value(url))
  } catch {
    return undefined
  }
  let host = "localhost"
  let port = 5432
  try {
    if (parsed.hostname !== "") {
      host = parsed.hostname.startsWith("[") && parsed.hostname.endsWith("]")
        ? parsed.hostname.slice(1, -1)
        : decodeURIComponent(parsed.hostname)
    }
  } catch {
    return undefined
  }
  if (parsed.port !== "") {
    const given = portOf(parsed.port)
    if (given === undefined) return undefined
    port = given
  }
  for (const [key, value] of parsed.searchParams) {
    if (key === "host") host = value
    if (key === "port") {
      const given = portOf(value)
      if (given === undefined) return undefined
      port = given
    }
  }
  return host.startsWith("/") ? { _tag: "Unix", path: `${host}/.s.PGSQL.${port}` } : { _tag: "Tcp", host, port }
}
