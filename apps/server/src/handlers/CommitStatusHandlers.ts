/** Commit statuses and the combined status (api-facts §1.6, §4.8). */
import { Effect, Option } from "effect"
import type { CommitStatus } from "@kiln/domain/git/CommitStatus"
import { CommitStatuses } from "@kiln/domain/git/CommitStatuses"
import { commitStatusSortOf } from "@kiln/domain/git/CommitStatusStore"
import type { PageRequest } from "@kiln/domain/Paging"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import type { User } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { requireSignedIn } from "../http/Caller.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { noCombinedStatus, type StatusView, toCombinedStatusJson, toCommitStatusJson } from "../wire/CommitStatus.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

export const CommitStatusHandlers = HandlerGroup.group(Api, "repositoryStatuses", [ApiErrors, KilnConfig], Effect.fnUntraced(function*(handlers) {
  const { errors, urls, lookup, render } = yield* makeRepoRequests
  const statuses = yield* CommitStatuses
  const users = yield* UserStore

  /** The creators of these statuses, looked up once each. */
  const viewOf = (target: AccessibleRepository, shown: ReadonlyArray<CommitStatus>) =>
    Effect.gen(function*() {
      const creators = new Map<number, User>()
      for (const id of new Set(shown.map((status) => status.creatorId))) {
        const user = yield* users.findById(id)
        if (Option.isSome(user)) creators.set(id, user.value)
      }
      const view: StatusView = {
        apiUrl: `${urls.rootUrl}api/v1/repos/${encodeURIComponent(target.owner.name)}/${encodeURIComponent(target.repository.name)}`,
        urls,
        creatorOf: (id) => Option.fromUndefinedOr(creators.get(id))
      }
      return view
    })

  const combined = (params: { readonly owner: string; readonly repo: string; readonly ref: string }, page: PageRequest) =>
    Effect.gen(function*() {
      const target = yield* lookup(params)
      const result = yield* statuses.combined(target, params.ref, page).pipe(Effect.mapError((error) => errors.forbidden(error.message)))
      if (Option.isNone(result)) return noCombinedStatus
      yield* setPagingHeaders({ total: result.value.total, page })
      // Forgejo renders nothing (`null`) for a page past the last context.
      if (result.value.statuses.length === 0) return null
      const view = yield* viewOf(target, result.value.statuses)
      return toCombinedStatusJson(result.value, render(target), view)
    })

  return handlers
    .handle("repoCreateStatus", ({ params, payload }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const principal = yield* requireSignedIn
        const created = yield* statuses.create(principal.user, target, params.sha, {
          state: payload.state ?? "",
          targetUrl: payload.target_url ?? "",
          description: payload.description ?? "",
          context: payload.context ?? ""
        }).pipe(Effect.mapError((error) =>
          error._tag === "Forbidden" ? errors.forbidden(error.message) : errors.validation(error.message)))
        return toCommitStatusJson(created, yield* viewOf(target, [created]))
      }))
    .handle("repoListStatuses", ({ params, query }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const page = pageFromQuery(query)
        const listed = yield* statuses.list(target, params.sha, {
          sort: commitStatusSortOf((query.sort ?? "").trim()),
          state: (query.state ?? "").trim(),
          page
        }).pipe(Effect.mapError((error) => errors.forbidden(error.message)))
        yield* setPagingHeaders({ total: listed.total, page })
        const view = yield* viewOf(target, listed.items)
        return listed.items.map((status) => toCommitStatusJson(status, view))
      }))
    .handle("repoGetCombinedStatusByRef", ({ params, query }) => combined(params, pageFromQuery(query)))
    .handle("repoGetCombinedStatus", ({ params, query }) => combined(params, pageFromQuery(query)))
}))
