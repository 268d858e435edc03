/**
 * Forgejo's Branch JSON (services/convert ToBranch, ToPayloadCommit, ToVerification; keys in the
 * order of modules/structs): an unprotected branch with its head commit as a PayloadCommit.
 */
import { Schema } from "effect"
import type { Branch } from "@kiln/domain/git/Branch"
import type { GitActor, GitTime } from "@kiln/domain/git/CommitInfo"

export const PayloadUserJson = Schema.Struct({
  name: Schema.String,
  email: Schema.String,
  username: Schema.String
}).annotate({ identifier: "PayloadUser" })

export const PayloadCommitVerificationJson = Schema.Struct({
  verified: Schema.Boolean,
  reason: Schema.String,
  signature: Schema.String,
  signer: Schema.NullOr(PayloadUserJson),
  payload: Schema.String
}).annotate({ identifier: "PayloadCommitVerification" })

export const PayloadCommitJson = Schema.Struct({
  id: Schema.String,
  message: Schema.String,
  url: Schema.String,
  author: PayloadUserJson,
  committer: PayloadUserJson,
  verification: PayloadCommitVerificationJson,
  timestamp: Schema.String,
  added: Schema.NullOr(Schema.Array(Schema.String)),
  removed: Schema.NullOr(Schema.Array(Schema.String)),
  modified: Schema.NullOr(Schema.Array(Schema.String))
}).annotate({ identifier: "PayloadCommit" })

export const BranchJson = Schema.Struct({
  name: Schema.String,
  commit: PayloadCommitJson,
  protected: Schema.Boolean,
  required_approvals: Schema.Number,
  enable_status_check: Schema.Boolean,
  status_check_contexts: Schema.Array(Schema.String),
  user_can_push: Schema.Boolean,
  user_can_merge: Schema.Boolean,
  effective_branch_protection_name: Schema.String
}).annotate({ identifier: "Branch" })
export type BranchJson = typeof BranchJson.Type

const twoDigits = (value: number) => String(value).padStart(2, "0")

/** Go's RFC 3339 rendering of a git time in its own zone: `2024-01-02T15:04:05+01:00`, `Z` for UTC. */
export const gitTimestamp = (time: GitTime): string => {
  const local = new Date((time.seconds + time.offsetMinutes * 60) * 1000).toISOString().replace(/\.\d{3}Z$/, "")
  if (time.offsetMinutes === 0) return `${local}Z`
  const sign = time.offsetMinutes < 0 ? "-" : "+"
  const minutes = Math.abs(time.offsetMinutes)
  return `${local}${sign}${twoDigits(Math.floor(minutes / 60))}:${twoDigits(minutes % 60)}`
}

export interface BranchView {
  /** The repository's `html_url`. */
  readonly htmlUrl: string
  /** The caller may write code: `user_can_push` and `user_can_merge` of an unprotected branch. */
  readonly canWrite: boolean
  /** The account name of a commit e-mail address ("" when no account has it). */
  readonly usernameOf: (email: string) => string
}

const payloadUser = (actor: GitActor, view: BranchView) => ({
  name: actor.name,
  email: actor.email,
  username: view.usernameOf(actor.email)
})

export const toBranchJson = (branch: Branch, view: BranchView): BranchJson => ({
  name: branch.name,
  commit: {
    id: branch.commitId,
    message: branch.message,
    url: `${view.htmlUrl}/commit/${branch.commitId}`,
    author: payloadUser(branch.author, view),
    committer: payloadUser(branch.committer, view),
    verification: branch.verification,
    timestamp: gitTimestamp(branch.author.when),
    added: null,
    removed: null,
    modified: null
  },
  protected: false,
  required_approvals: 0,
  enable_status_check: false,
  status_check_contexts: [],
  user_can_push: view.canWrite,
  user_can_merge: view.canWrite,
  effective_branch_protection_name: ""
})
