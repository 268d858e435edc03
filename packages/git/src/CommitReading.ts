/** Reading commits through isomorphic-git and turning them into domain values. */
import * as fs from "node:fs"
import { Errors, readCommit, readObject, type ReadCommitResult } from "isomorphic-git"
import { Option } from "effect"
import type { CommitInfo, GitActor } from "@kiln/domain/git/CommitInfo"

interface IsomorphicActor {
  readonly name: string
  readonly email: string
  readonly timestamp: number
  readonly timezoneOffset: number
}

// isomorphic-git stores offsets as JavaScript does (minutes west of UTC); git and Kiln count east.
const eastOffset = (timezoneOffset: number) => (timezoneOffset === 0 ? 0 : -timezoneOffset)

const toActor = (actor: IsomorphicActor): GitActor => ({
  name: actor.name,
  email: actor.email,
  when: { seconds: actor.timestamp, offsetMinutes: eastOffset(actor.timezoneOffset) }
})

export const toIsomorphicActor = (actor: GitActor): IsomorphicActor => ({
  name: actor.name,
  email: actor.email,
  timestamp: actor.when.seconds,
  timezoneOffset: eastOffset(actor.when.offsetMinutes)
})

const toCommitInfo = ({ oid, commit }: ReadCommitResult): CommitInfo => ({
  id: oid,
  message: commit.message,
  author: toActor(commit.author),
  committer: toActor(commit.committer),
  signature: Option.fromUndefinedOr(commit.gpgsig),
  parents: commit.parent
})

export const readCommitInfo = async (gitdir: string, cache: object, id: string): Promise<CommitInfo> =>
  toCommitInfo(await readCommit({ fs, gitdir, oid: id, cache }))

/** Follows annotated tags down to a commit; undefined when they end at a tree or blob. */
export const peelToCommit = async (gitdir: string, cache: object, id: string): Promise<string | undefined> => {
  let oid = id
  // Tags of tags exist, but chains longer than a few are not worth following.
  for (let depth = 0; depth < 8; depth++) {
    const object = await readObject({ fs, gitdir, oid, cache })
    if (object.type === "commit") return oid
    if (object.format !== "parsed" || object.type !== "tag") return undefined
    oid = object.object.object
  }
  return undefined
}

/** isomorphic-git signals absence with these: a missing object or ref, or a path through a non-tree. */
export const isMissing = (error: unknown): boolean =>
  error instanceof Errors.NotFoundError || error instanceof Errors.ObjectTypeError
