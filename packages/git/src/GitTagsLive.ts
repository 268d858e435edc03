/**
 * GitTags on the bare repositories of GitStorageLive (same root, same layout): tags are made with
 * `git update-ref` and an empty old value, so a tag that appeared meanwhile is refused by git
 * itself rather than overwritten.
 */
import { lstat } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { AlreadyExists, Invalid, NotFound } from "@kiln/domain/errors"
import type { RepositoryLocation } from "@kiln/domain/git/GitStorage"
import { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import { GitTags } from "@kiln/domain/git/GitTags"
import { isValidRefName } from "@kiln/domain/git/RefName"
import { type GitCommandOptions, runGit } from "./GitCommand.ts"
import { isStorageName, repositoryPath } from "./RepositoryPaths.ts"

export interface GitTagsOptions {
  /** The git executable. Default `git` from PATH. */
  readonly gitBinary?: string
}

const fullId = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

export const makeGitTags = (root: string, options: GitTagsOptions = {}) =>
  Effect.sync(() => {
    const command: GitCommandOptions = { gitBinary: options.gitBinary ?? "git" }
    const git = (gitdir: string, args: ReadonlyArray<string>) =>
      Effect.tryPromise({
        try: () => runGit(command, gitdir, args),
        catch: (error) => new GitStorageFailure({ operation: "create tag", message: describe(error) })
      })

    const open = (location: RepositoryLocation) =>
      Effect.gen(function*() {
        if (!isStorageName(location.owner) || !isStorageName(location.name)) {
          return yield* new Invalid({ message: `not a repository name: ${location.owner}/${location.name}` })
        }
        const gitdir = repositoryPath(root, location)
        const exists = yield* Effect.promise(() => lstat(join(gitdir, "HEAD")).then(() => true, () => false))
        if (!exists) {
          return yield* new NotFound({ message: `repository does not exist [owner: ${location.owner}, name: ${location.name}]` })
        }
        return gitdir
      })

    return GitTags.of({
      createTag: (location, name, commitId) =>
        Effect.gen(function*() {
          if (!isValidRefName(name)) return yield* new Invalid({ message: `invalid tag name: ${name}` })
          if (!fullId.test(commitId)) return yield* new NotFound({ message: `commit does not exist [id: ${commitId}]` })
          const gitdir = yield* open(location)
          const commit = yield* git(gitdir, ["cat-file", "-t", commitId])
          if (commit.exitCode !== 0 || commit.stdout.trim() !== "commit") {
            return yield* new NotFound({ message: `commit does not exist [id: ${commitId}]` })
          }
          // An empty old value: git refuses when the tag exists, even if it appeared a moment ago.
          const result = yield* git(gitdir, ["update-ref", `refs/tags/${name}`, commitId, ""])
          if (result.exitCode === 0) return
          if (result.stderr.includes("reference already exists")) {
            return yield* new AlreadyExists({ message: `tag already exists [name: ${name}]` })
          }
          if (result.stderr.includes("exists; cannot create") || result.stderr.includes("cannot lock ref")) {
            return yield* new Invalid({ message: `tag name collides with an existing tag: ${name}` })
          }
          return yield* new GitStorageFailure({ operation: "create tag", message: result.stderr.trim() })
        })
    })
  })

export const GitTagsLive = (root: string, options: GitTagsOptions = {}): Layer.Layer<GitTags> =>
  Layer.effect(GitTags, makeGitTags(root, options))
