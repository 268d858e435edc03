/** Reading commits through isomorphic-git and turning them into domain values. */
import { type CommitObject, Errors, readCommit, readObject } from "isomorphic-git"
import { Option } from "effect"
import type { CommitInfo, GitActor } from "@kiln/domain/git/CommitInfo"
import { isomorphicGitFs as fs } from "./IsomorphicGitFs.ts"

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

const toCommitInfo = ({ oid, commit }: { readonly oid: string; readonly commit: CommitObject }): CommitInfo => ({
  id: oid,
  message: commit.message,
  author: toActor(commit.author),
  committer: toActor(commit.committer),
  signature: Option.fromUndefinedOr(commit.gpgsig),
  parents: commit.parent
})

/** A commit object's text as isomorphic-git's GitCommit parses it, for commits read with git itself. */
export const parseCommitObject = (oid: string, raw: Buffer): CommitInfo => {
  const text = raw.toString("utf8")
  const split = text.indexOf("\n\n")
  const headerText = split < 0 ? text : text.slice(0, split)
  const headers: Array<string> = []
  for (const line of headerText.split("\n")) {
    // A continuation line (the signature's) belongs to the header above, without its space.
    if (line.startsWith(" ") && headers.length > 0) headers[headers.length - 1] += `\n${line.slice(1)}`
    else headers.push(line)
  }
  const keyOf = (header: string) => header.slice(0, header.indexOf(" "))
  const valueOf = (header: string) => header.slice(header.indexOf(" ") + 1)
  // Like git: the parents are the run of `parent` lines right after `tree`; later headers, first one wins.
  const parents: Array<string> = []
  let index = 1
  while (index < headers.length && keyOf(headers[index] ?? "") === "parent") parents.push(valueOf(headers[index++] ?? ""))
  const fields = new Map<string, string>()
  for (; index < headers.length; index++) {
    const header = headers[index] ?? ""
    if (!fields.has(keyOf(header))) fields.set(keyOf(header), valueOf(header))
  }
  const actor = (value: string | undefined): GitActor => {
    const match = /^(.*) <(.*)> (.*) (.*)$/.exec(value ?? "")
    const zone = /([+-])(\d\d)(\d\d)/.exec(match?.[4] ?? "")
    const minutes = zone === null ? 0 : (zone[1] === "-" ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3]))
    return {
      name: match?.[1] ?? "",
      email: match?.[2] ?? "",
      // "-0000" is no offset, as for isomorphic-git.
      when: { seconds: Number(match?.[3] ?? 0), offsetMinutes: minutes === 0 ? 0 : minutes }
    }
  }
  const message = split < 0 ? "" : text.slice(split + 2)
  return {
    id: oid,
    // isomorphic-git's normalizeNewlines: no carriage returns, no leading newlines, one newline at the end.
    message: `${message.replace(/\r/g, "").replace(/^\n+/, "").replace(/\n+$/, "")}\n`,
    author: actor(fields.get("author")),
    committer: actor(fields.get("committer")),
    signature: Option.fromUndefinedOr(fields.get("gpgsig")),
    parents
  }
}

export const readCommitInfo = async (gitdir: string, cache: object, id: string): Promise<CommitInfo> =>
  toCommitInfo(await readCommit({ fs, gitdir, oid: id, cache }))

/**
 * The commit `id` names, annotated tags followed down to it (a chain of 8 at most: longer ones are
 * not worth following); undefined when they end at a tree or blob. Each object is read once: the
 * commit is parsed from the same read that found it.
 */
export const readPeeledCommitInfo = async (gitdir: string, cache: object, id: string): Promise<CommitInfo | undefined> => {
  let oid = id
  for (let depth = 0; depth < 8; depth++) {
    const object = await readObject({ fs, gitdir, oid, cache })
    if (object.format !== "parsed") return undefined
    if (object.type === "commit") return toCommitInfo({ oid, commit: object.object })
    if (object.type !== "tag") return undefined
    oid = object.object.object
  }
  return undefined
}

/** isomorphic-git signals absence with these: a missing object or ref, or a path through a non-tree. */
export const isMissing = (error: unknown): boolean =>
  error instanceof Errors.NotFoundError || error instanceof Errors.ObjectTypeError
