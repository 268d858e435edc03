/**
 * Access levels, ordered: none < read < write < admin < owner. Teams, collaborations and the
 * computed permission on a repository all speak in these. [models/perm/access_mode.go]
 */
import { Schema } from "effect"

export const accessModes = ["none", "read", "write", "admin", "owner"] as const

export const AccessMode = Schema.Literals(accessModes)
export type AccessMode = typeof AccessMode.Type

export const accessRank = (mode: AccessMode): number => accessModes.indexOf(mode)

/** `mode` grants at least `required`. */
export const atLeast = (mode: AccessMode, required: AccessMode): boolean => accessRank(mode) >= accessRank(required)

export const higherAccess = (a: AccessMode, b: AccessMode): AccessMode => accessRank(a) >= accessRank(b) ? a : b

/** The highest of the modes; `none` for none. */
export const highestAccess = (modes: Iterable<AccessMode>): AccessMode => {
  let highest: AccessMode = "none"
  for (const mode of modes) highest = higherAccess(highest, mode)
  return highest
}

export const isAccessMode = (value: string): value is AccessMode => accessModes.some((mode) => mode === value)

/**
 * Forgejo's `ParseAccessMode`, used on request bodies: only `read`, `write` and `admin` are
 * recognised; anything else, `owner` included, is `none`.
 */
export const parseAccessMode = (text: string): AccessMode =>
  text === "read" || text === "write" || text === "admin" ? text : "none"
