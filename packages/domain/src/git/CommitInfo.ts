/** What Kiln needs to know about one commit (the Branch JSON, commit statuses, the branch table). */
import { Schema } from "effect"

/** A moment as git records it: epoch seconds plus the author's UTC offset (east positive, +0200 = 120). */
export const GitTime = Schema.Struct({
  seconds: Schema.Int,
  offsetMinutes: Schema.Int
})
export type GitTime = typeof GitTime.Type

/** The author or committer line of a commit. */
export const GitActor = Schema.Struct({
  name: Schema.String,
  email: Schema.String,
  when: GitTime
})
export type GitActor = typeof GitActor.Type

export const CommitInfo = Schema.Struct({
  /** Full hexadecimal object id. */
  id: Schema.String,
  /** The raw message, trailing newline included, as git stores it. */
  message: Schema.String,
  author: GitActor,
  committer: GitActor,
  /** The `gpgsig` header (ASCII-armored), when the commit is signed. */
  signature: Schema.Option(Schema.String),
  parents: Schema.Array(Schema.String)
})
export type CommitInfo = typeof CommitInfo.Type
