/**
 * `clone_addr` of MigrateRepoOptions as Forgejo reads it (services/forms ParseRemoteAddr,
 * services/migrations isURLAllowed): an http(s) or git URL, or a local path. Credentials come
 * from `auth_username`/`auth_password` (or `auth_token`), never from the URL text we keep.
 */
import { Invalid } from "../errors.ts"

export interface RemoteAddress {
  readonly kind: "remote"
  readonly scheme: "http" | "https" | "git"
  /** Host name or IP literal, lower-cased, without brackets. */
  readonly host: string
  /** `scheme://host[:port]/path` without user information: what is cloned and recorded. */
  readonly url: string
}

export interface LocalAddress {
  readonly kind: "local"
  readonly path: string
}

export type CloneAddress = RemoteAddress | LocalAddress

export const LOCAL_IMPORT_MESSAGE = "You are not allowed to import local repositories."
export const INVALID_LOCAL_PATH_MESSAGE = "Invalid local path, it does not exist or not a directory."
export const DISALLOWED_HOST_MESSAGE = "You can not import from disallowed hosts."

const notAllowed = (host: string, why: string) => new Invalid({ message: `migration/cloning from '${host}' is not allowed${why}` })

const urlPattern = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[0-9A-Fa-f:.]+\]|[^:/?#\[\]]*)(?::(\d*))?([/?#].*)?$/

/**
 * Classifies `raw` (trimmed). Invalid with Forgejo's texts for unsupported schemes (ssh included:
 * migrations never use it), scp-like `user@host:path`, and malformed URLs.
 */
export const parseCloneAddress = (raw: string): CloneAddress | Invalid => {
  const text = raw.trim()
  const schemeEnd = text.indexOf("://")
  if (schemeEnd < 0) {
    // `git@host:owner/repo` would be ssh; a bare path is local.
    if (/^[^/]*@[^/]*:/.test(text)) return notAllowed(text, ": the provided url is invalid")
    return { kind: "local", path: text }
  }
  const scheme = text.slice(0, schemeEnd).toLowerCase()
  if (scheme === "file") return { kind: "local", path: text.slice(schemeEnd + 3) }
  const match = urlPattern.exec(text)
  const hostPart = match?.[2] ?? ""
  if (match === null || hostPart === "") return notAllowed(text, ": the provided url is invalid")
  if (scheme !== "http" && scheme !== "https" && scheme !== "git") {
    return notAllowed(hostPart, ": the provided url protocol is not allowed")
  }
  if (/%0[ad]/i.test(text)) return notAllowed(hostPart, ": the provided url is invalid")
  const port = match[3] ?? ""
  const rest = match[4] ?? ""
  const host = hostPart.replace(/^\[|\]$/g, "").toLowerCase()
  return {
    kind: "remote",
    scheme,
    host,
    url: `${scheme}://${hostPart.toLowerCase()}${port === "" ? "" : `:${port}`}${rest}`
  }
}

/** Credentials for the clone: a token goes as the password of `oauth2` unless a password is given. */
export const cloneCredentials = (input: {
  readonly authUsername?: string | undefined
  readonly authPassword?: string | undefined
  readonly authToken?: string | undefined
}): { readonly username: string; readonly password: string } | undefined => {
  const username = input.authUsername ?? ""
  const password = input.authPassword ?? ""
  const token = input.authToken ?? ""
  if (password !== "" || username !== "") return { username, password }
  if (token !== "") return { username: "oauth2", password: token }
  return undefined
}
