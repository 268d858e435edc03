/**
 * PushCommits on the git CLI: one `git log` lists the commits with their name-status against the
 * first parent (renames as a removal and an addition), one `rev-list --count` counts them.
 */
import { Effect, Layer } from "effect"
import type { RepositoryLocation } from "@kiln/domain/git/GitStorage"
import { type PushedCommit, PushCommits } from "@kiln/domain/webhook/PushCommits"
import { type GitCommandOptions, runGit } from "./GitCommand.ts"
import { repositoryPath } from "./RepositoryPaths.ts"

const FORMAT = "%x01%H%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%P%x00%B%x00"

/** Go writes a zero offset as `Z`. */
const goTime = (iso: string): string => iso.replace(/[+-]00:00$/, "Z")

const parseRecord = (record: string): PushedCommit | undefined => {
  const [id = "", authorName = "", authorEmail = "", authorDate = "", committerName = "", committerEmail = "", parents = "", message = "", rest = ""] =
    record.split("\0")
  if (!/^[0-9a-f]{40,64}$/.test(id)) return undefined
  const added: Array<string> = []
  const removed: Array<string> = []
  const modified: Array<string> = []
  for (const line of rest.split("\n")) {
    const tab = line.indexOf("\t")
    if (tab < 0) continue
    const path = line.slice(tab + 1)
    const status = line.slice(0, tab)
    if (status === "A") added.push(path)
    else if (status === "D") removed.push(path)
    else if (status === "M") modified.push(path)
  }
  return {
    id,
    message,
    authorName,
    authorEmail,
    timestamp: goTime(authorDate),
    committerName,
    committerEmail,
    parents: parents === "" ? [] : parents.split(" "),
    added,
    removed,
    modified
  }
}

export const GitPushCommitsLive = (root: string, options: Partial<GitCommandOptions> = {}): Layer.Layer<PushCommits> => {
  const command: GitCommandOptions = { gitBinary: options.gitBinary ?? "git", ...(options.env === undefined ? {} : { env: options.env }) }
  const git = (location: RepositoryLocation, args: ReadonlyArray<string>) =>
    Effect.promise(() => runGit(command, repositoryPath(root, location), args)).pipe(
      Effect.flatMap((result) =>
        result.exitCode === 0 ? Effect.succeed(result.stdout) : Effect.die(new Error(`git ${args[0] ?? ""} failed: ${result.stderr.trim()}`)))
    )
  return Layer.succeed(
    PushCommits,
    PushCommits.of({
      list: (location, newId, exclude, limit) =>
        Effect.gen(function*() {
          const range = exclude === undefined ? [newId] : [newId, `^${exclude}`]
          const log = yield* git(location, [
            "-c", "core.quotePath=false", "log", `-n${limit}`, "--no-renames", "--name-status", "--diff-merges=first-parent",
            `--format=${FORMAT}`, ...range, "--"
          ])
          const commits = log.split("\x01").map(parseRecord).filter((commit): commit is PushedCommit => commit !== undefined)
          // Fewer than the limit listed: that is all of them, no need to count.
          if (exclude === undefined || commits.length < limit) return { commits, total: commits.length }
          const total = Number((yield* git(location, ["rev-list", "--count", ...range, "--"])).trim())
          return { commits, total }
        })
    })
  )
}
