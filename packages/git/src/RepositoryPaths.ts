/**
 * Where repositories live under the storage root: `<root>/<owner>/<name>.git`, names lower-cased so
 * that `Alice/Repo` and `alice/repo` are one repository, as in Forgejo.
 */
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import type { RepositoryLocation } from "@kiln/domain/git/GitStorage"

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
 * do, so neither can be mistaken for the other and leftovers are recognisable.
 */
export const stagingPath = (target: string): string => `${target}.tmp-${randomBytes(6).toString("hex")}`
export const trashPath = (target: string): string => `${target}.trash-${randomBytes(6).toString("hex")}`
export const isLeftover = (entryName: string): boolean => /\.git\.(?:tmp|trash)-[0-9a-f]+$/.test(entryName)
