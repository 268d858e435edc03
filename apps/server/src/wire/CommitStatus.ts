/** Forgejo's CommitStatus and CombinedStatus JSON (services/convert/status.go, modules/structs/status.go). */
import { Option, Schema } from "effect"
import type { CommitStatus } from "@kiln/domain/git/CommitStatus"
import type { CombinedStatus } from "@kiln/domain/git/CommitStatuses"
import type { User } from "@kiln/domain/user/User"
import { RepositoryJson } from "./Repository.ts"
import { rfc3339 } from "./Time.ts"
import { type SiteUrls, toUserJson, UserJson } from "./User.ts"

export const CommitStatusJson = Schema.Struct({
  id: Schema.Number,
  status: Schema.String,
  target_url: Schema.String,
  description: Schema.String,
  url: Schema.String,
  context: Schema.String,
  creator: Schema.NullOr(UserJson),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotate({ identifier: "CommitStatus" })
export type CommitStatusJson = typeof CommitStatusJson.Type

export const CombinedStatusJson = Schema.Struct({
  state: Schema.String,
  sha: Schema.String,
  total_count: Schema.Number,
  statuses: Schema.NullOr(Schema.Array(CommitStatusJson)),
  repository: Schema.NullOr(RepositoryJson),
  commit_url: Schema.String,
  url: Schema.String
}).annotate({ identifier: "CombinedStatus" })
export type CombinedStatusJson = typeof CombinedStatusJson.Type

/** What Forgejo answers for a commit without statuses: the zero CombinedStatus. */
export const noCombinedStatus: CombinedStatusJson = {
  state: "",
  sha: "",
  total_count: 0,
  statuses: null,
  repository: null,
  commit_url: "",
  url: ""
}

export interface StatusView {
  /** The repository's API URL, `<ROOT_URL>api/v1/repos/{owner}/{repo}`. */
  readonly apiUrl: string
  readonly urls: SiteUrls
  /** The creator's account, if it still exists (rendered as an anonymous caller sees it). */
  readonly creatorOf: (id: number) => Option.Option<User>
}

export const toCommitStatusJson = (status: CommitStatus, view: StatusView): CommitStatusJson => ({
  id: status.index,
  status: status.state,
  target_url: status.targetUrl,
  description: status.description,
  url: `${view.apiUrl}/statuses/${encodeURIComponent(status.sha)}`,
  context: status.context,
  creator: Option.match(view.creatorOf(status.creatorId), {
    onNone: () => null,
    onSome: (user) => toUserJson(user, view.urls, { signed: false, privileged: false })
  }),
  created_at: rfc3339(status.createdAt),
  updated_at: rfc3339(status.createdAt)
})

export const toCombinedStatusJson = (
  combined: CombinedStatus,
  repository: typeof RepositoryJson.Type,
  view: StatusView
): CombinedStatusJson => ({
  state: combined.state,
  sha: combined.sha,
  total_count: combined.statuses.length,
  statuses: combined.statuses.map((status) => toCommitStatusJson(status, view)),
  repository,
  commit_url: "",
  url: ""
})
