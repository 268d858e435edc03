/**
 * Commit statuses and Forgejo's combined status (api-facts §1.6, §4.8): the latest status of each
 * context counts, the worst state wins, and `error` is reported as `failure`.
 */
export type CommitState = "pending" | "success" | "error" | "failure" | "warning"

export const commitStates: ReadonlyArray<CommitState> = ["pending", "success", "error", "failure", "warning"]

export const isCommitState = (value: string): value is CommitState => commitStates.some((state) => state === value)

export interface CommitStatus {
  readonly id: number
  readonly repositoryId: number
  /** The full commit id the status belongs to. */
  readonly sha: string
  /** Per (repository, commit) sequence number, starting at 1: Forgejo's `id` in the JSON. */
  readonly index: number
  /** Not validated by the API: any string is stored, as in Forgejo. */
  readonly state: string
  readonly targetUrl: string
  readonly description: string
  readonly context: string
  readonly creatorId: number
  readonly createdAt: number
}

/** Worst first: a combined status is the lowest state among its contexts. */
const severity: Readonly<Record<CommitState, number>> = { error: 0, failure: 1, warning: 2, pending: 3, success: 4 }

/**
 * Forgejo's `CalcCommitStatus`: the worst state among `statuses`; unknown state strings never
 * replace an earlier value (when every state is unknown, the first one stands); `error` is
 * reported as `failure`. `""` when there is nothing to combine.
 */
export const combinedState = (statuses: ReadonlyArray<{ readonly state: string }>): string => {
  let worst: CommitState | undefined
  for (const { state } of statuses) {
    if (!isCommitState(state)) continue
    if (worst === undefined || severity[state] < severity[worst]) worst = state
  }
  if (worst === undefined) return statuses[0]?.state ?? ""
  return worst === "error" ? "failure" : worst
}

/** The latest status (highest index) of each context, in context order of first appearance by index. */
export const latestPerContext = <S extends Pick<CommitStatus, "context" | "index">>(statuses: ReadonlyArray<S>): ReadonlyArray<S> => {
  const latest = new Map<string, S>()
  for (const status of statuses) {
    const current = latest.get(status.context)
    if (current === undefined || status.index > current.index) latest.set(status.context, status)
  }
  return [...latest.values()].sort((a, b) => a.index - b.index)
}
