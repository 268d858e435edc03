/**
 * Commit statuses (api-facts §1.6, §4.8): posted against any commit-ish and stored against the full
 * commit id, listed with Forgejo's sorts and state filter, and combined (latest status per context,
 * worst state wins) through the rules in CommitStatus.ts.
 * [routers/api/v1/repo/status.go, services/repository/commitstatus, models/git/commit_status.go]
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { Forbidden, type Invalid } from "../errors.ts"
import { atLeast } from "../org/AccessMode.ts"
import { checkHttpUrl } from "../org/HttpUrl.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { AccessibleRepository } from "../repo/Repositories.ts"
import type { User } from "../user/User.ts"
import { REQUIRE_CODE_READ_MESSAGE, REQUIRE_CODE_WRITE_MESSAGE } from "./Branch.ts"
import { combinedState, type CommitStatus, isCommitState } from "./CommitStatus.ts"
import { type CommitStatusSort, CommitStatusStore } from "./CommitStatusStore.ts"
import { GitStorage } from "./GitStorage.ts"

/**
 * The commit a status is posted for does not exist, or the repository has no git data to resolve
 * a ref in (empty). Forgejo answers 500; Kiln answers 422, since it is the caller's input that
 * names no commit.
 */
export class CommitUnresolvable extends Schema.TaggedError<CommitUnresolvable>()("CommitUnresolvable", {
  message: Schema.String
}) {}

/** CreateStatusOption; missing fields are "". */
export interface CreateStatusInput {
  readonly state: string
  readonly targetUrl: string
  readonly description: string
  readonly context: string
}

export interface StatusListQuery {
  readonly sort: CommitStatusSort
  /** Ignored unless one of the five states, as in Forgejo. */
  readonly state: string
  readonly page: PageRequest
}

export interface CombinedStatus {
  /** Full commit id the statuses belong to. */
  readonly sha: string
  /** `combinedState` of this page's statuses. */
  readonly state: string
  /** The latest status of each context on this page, in index order (empty past the last page). */
  readonly statuses: ReadonlyArray<CommitStatus>
  /** Contexts with a status. */
  readonly total: number
}

export class CommitStatuses extends Context.Service<CommitStatuses, {
  /** Forbidden without code write; CommitUnresolvable when `ref` names no commit (Forgejo: 500, Kiln: 422). */
  readonly create: (
    doer: User,
    target: AccessibleRepository,
    ref: string,
    input: CreateStatusInput
  ) => Effect.Effect<CommitStatus, Forbidden | Invalid | CommitUnresolvable>
  /** Every status of the commit `ref` names (a ref that names none is used as it is: no statuses). */
  readonly list: (target: AccessibleRepository, ref: string, query: StatusListQuery) => Effect.Effect<Page<CommitStatus>, Forbidden>
  /** None when the commit has no status at all, as in an empty repository (Forgejo: 500 there). */
  readonly combined: (
    target: AccessibleRepository,
    ref: string,
    page: PageRequest
  ) => Effect.Effect<Option.Option<CombinedStatus>, Forbidden>
}>()("@kiln/domain/git/CommitStatuses") {}

const fullId = /^[0-9a-f]{40}$/

export const layer: Layer.Layer<CommitStatuses, never, GitStorage | CommitStatusStore> = Layer.effect(
  CommitStatuses,
  Effect.gen(function*() {
    const git = yield* GitStorage
    const store = yield* CommitStatusStore

    const locationOf = (target: AccessibleRepository) => ({ owner: target.owner.name, name: target.repository.name })
    const canRead = (target: AccessibleRepository) =>
      atLeast(target.access.units["repo.code"], "read") || atLeast(target.access.mode, "admin")
    const canWrite = (target: AccessibleRepository) =>
      atLeast(target.access.units["repo.code"], "write") || atLeast(target.access.mode, "admin")
    const requireRead = (target: AccessibleRepository) =>
      canRead(target) ? Effect.void : Effect.fail(new Forbidden({ message: REQUIRE_CODE_READ_MESSAGE }))

    /**
     * Forgejo's `ResolveRefOrSha`: branch, tag, then commit id; verbatim when nothing matches. A
     * branch is read from the refs alone, as Forgejo reads it (CI polls statuses by branch).
     */
    const commitIdOf = (target: AccessibleRepository, ref: string) =>
      fullId.test(ref)
        ? Effect.succeed(ref)
        : git.branchTip(locationOf(target), ref).pipe(
          Effect.flatMap(Option.match({
            onSome: Effect.succeed,
            onNone: () => Effect.map(git.resolveCommit(locationOf(target), ref), (commit) => commit.id)
          })),
          Effect.catch(() => Effect.succeed(ref))
        )

    return CommitStatuses.of({
      create: (doer, target, ref, input) =>
        Effect.gen(function*() {
          if (!canWrite(target)) return yield* new Forbidden({ message: REQUIRE_CODE_WRITE_MESSAGE })
          yield* checkHttpUrl(input.targetUrl.trim(), "TargetURL")
          const commit = yield* git.resolveCommit(locationOf(target), ref).pipe(
            Effect.mapError(() => new CommitUnresolvable({ message: `GetCommit[${ref}]: object does not exist [id: ${ref}, rel_path: ]` }))
          )
          return yield* store.insert({
            repositoryId: target.repository.id,
            sha: commit.id,
            state: input.state,
            targetUrl: input.targetUrl.trim(),
            description: input.description.trim(),
            context: input.context.trim(),
            creatorId: doer.id,
            createdAt: Math.floor((yield* Clock.currentTimeMillis) / 1000)
          })
        }),

      list: (target, ref, query) =>
        Effect.gen(function*() {
          yield* requireRead(target)
          const sha = yield* commitIdOf(target, ref)
          return yield* store.list(target.repository.id, sha, {
            sort: query.sort,
            state: isCommitState(query.state) ? query.state : undefined,
            page: query.page
          })
        }),

      combined: (target, ref, page) =>
        Effect.gen(function*() {
          yield* requireRead(target)
          // An empty repository has no commit, so no status: what an unknown ref answers.
          if (target.repository.isEmpty) return Option.none()
          const sha = yield* commitIdOf(target, ref)
          const latest = yield* store.latest(target.repository.id, sha, page)
          if (latest.total === 0) return Option.none()
          return Option.some({ sha, state: combinedState(latest.items), statuses: latest.items, total: latest.total })
        })
    })
  })
)
