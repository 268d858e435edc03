/**
 * The RepositoryDirectories adapter: what lies under the storage root, read without opening packs.
 * Owner directories whose names start with a dot (the transfers' `.staging`) and entries that do not
 * end in `.git` (staging and trash leftovers) are work areas, never repositories.
 */
import { lstat, readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer, Option } from "effect"
import { Invalid, NotFound } from "@kiln/domain/errors"
import type { RepositoryLocation } from "@kiln/domain/git/GitStorage"
import { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import { RepositoryDirectories } from "@kiln/domain/git/RepositoryDirectories"
import { isStorageName, repositoryPath } from "./RepositoryPaths.ts"

const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined

const absentAsEmpty = (error: unknown): Array<never> => {
  if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return []
  throw error
}

const REPOSITORY_SUFFIX = ".git"

/** Every `<owner>/<name>.git` directory under `root`, sorted by owner then name. */
const listDirectories = async (root: string): Promise<Array<RepositoryLocation>> => {
  const found: Array<RepositoryLocation> = []
  const owners = (await readdir(root, { withFileTypes: true }).catch(absentAsEmpty))
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && isStorageName(entry.name))
    .map((entry) => entry.name)
    .sort()
  for (const owner of owners) {
    const entries = await readdir(join(root, owner), { withFileTypes: true }).catch(absentAsEmpty)
    const names = entries
      .filter((entry) => entry.isDirectory() && entry.name.endsWith(REPOSITORY_SUFFIX))
      .map((entry) => entry.name.slice(0, -REPOSITORY_SUFFIX.length))
      .filter((name) => name !== "" && isStorageName(name))
      .sort()
    for (const name of names) found.push({ owner, name })
  }
  return found
}

export const makeRepositoryDirectories = (root: string) => {
  const locate = (location: RepositoryLocation): Effect.Effect<string, Invalid> =>
    isStorageName(location.owner) && isStorageName(location.name)
      ? Effect.succeed(repositoryPath(root, location))
      : Effect.fail(new Invalid({ message: `not a repository name: ${location.owner}/${location.name}` }))

  return RepositoryDirectories.of({
    exists: (location) =>
      Effect.flatMap(locate(location), (path) =>
        Effect.promise(() =>
          lstat(path).then(() => true, (error: unknown) => {
            if (errorCode(error) === "ENOENT") return false
            throw error
          })
        )),
    list: Effect.tryPromise({
      try: () => listDirectories(root),
      catch: (error) => new GitStorageFailure({ operation: "list", message: error instanceof Error ? error.message : String(error) })
    }),
    head: (location) =>
      Effect.flatMap(locate(location), (path) =>
        Effect.tryPromise({ try: () => readFile(join(path, "HEAD"), "utf8"), catch: (error) => error }).pipe(
          Effect.map((content) => {
            const match = /^ref: refs\/heads\/(\S+)\s*$/.exec(content)
            return match?.[1] === undefined ? Option.none<string>() : Option.some(match[1])
          }),
          Effect.catch((error) =>
            errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR"
              ? Effect.fail(new NotFound({ message: `repository does not exist [owner: ${location.owner}, name: ${location.name}]` }))
              : Effect.die(error)
          )
        ))
  })
}

export const RepositoryDirectoriesLive = (root: string): Layer.Layer<RepositoryDirectories> =>
  Layer.succeed(RepositoryDirectories, makeRepositoryDirectories(root))
