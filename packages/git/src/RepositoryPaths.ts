/**
 * Where repositories live under the storage root: `<root>/<owner>/<name>.git`, names lower-cased so
 * that `Alice/Repo` and `alice/repo` are one repository, as in Forgejo.
 */
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import * as WorkOwner from "@kiln/domain/coordination/WorkOwner"
import type { RepositoryLocation } from "@kiln/domain/git/GitStorage"
import { ownerTag } from "./ProcessWorkOwner.ts"

/** Owner and repository names that can safely become one path segment. */
export const isStorageName = (name: string): boolean =>
  /^[A-Za-z0-9._-]+$/.test(name) && name !== "." && name !== ".."

export const ownerPath = (root: string, owner: string): string => {
  if (!isStorageName(owner)) throw new RangeError(`not a storable owner name: ${JSON.stringify(owner)}`)
  return join(root, owner.toLowerCase())
}

/** The bare repository's directory. Names come from the database, so an unstorable one is a bug. */
export const repositoryPath = (root: string, location: RepositoryLocation): string => {
  if (!isStorageName(location.name)) {
    throw new RangeError(`not a storable repository name: ${JSON.stringify(location.name)}`)
  }
  return join(ownerPath(root, location.owner), `${location.name.toLowerCase()}.git`)
}

/**
 * Work directories next to a repository. A repository directory always ends in `.git`, these never
 * do, so neither can be mistaken for the other and leftovers are recognisable. Each carries the tag
 * of the process that made it (`ProcessWorkOwner.ts`): a start-up reaps only those of processes
 * that are gone.
 */
export const stagingPath = (target: string): string => `${target}.tmp-${ownerTag}-${randomBytes(6).toString("hex")}`
export const trashPath = (target: string): string => `${target}.trash-${ownerTag}-${randomBytes(6).toString("hex")}`

const leftover = /\.git\.(?:tmp|trash)-(?:(.+)-)?[0-9a-f]+$/

/**
 * Whether an entry is a staging or trash directory, and whose: `owner` is undefined for one
 * without a recognisable owner (made by an earlier version).
 */
export const leftoverOf = (entryName: string): { readonly owner: WorkOwner.WorkOwner | undefined } | undefined => {
  const match = leftover.exec(entryName)
  if (match === null) return undefined
  return { owner: match[1] === undefined ? undefined : WorkOwner.parse(match[1]) }
}
