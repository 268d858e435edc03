/** `GET` and `POST /repos/{o}/{r}/forks` (api-facts §4.11). */
import { Effect, Option } from "effect"
import { isPublicRepository } from "@kiln/domain/repo/Repositories"
import { UserStore } from "@kiln/domain/user/UserStore"
import { GitTransfers } from "@kiln/domain/git/GitTransfers"
import { QuotaEnforcement } from "@kiln/domain/quota/QuotaEnforcement"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { currentUser, requireSignedIn } from "../http/Caller.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { callerIsPublicOnly } from "../http/PublicOnlyToken.ts"
import { requireWithinQuota } from "../http/QuotaGate.ts"
import { requireCodeRead } from "./CodeReadGate.ts"
import { makeChangeEvents } from "../webhooks/ChangeEvents.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

export const ForkHandlers = HandlerGroup.group(Api, "repositoryFork", [ApiErrors, GitTransfers, KilnConfig, QuotaEnforcement], Effect.fnUntraced(function*(handlers) {
  const { repositories, lookup, failure, render } = yield* makeRepoRequests
  const users = yield* UserStore
  const changes = yield* makeChangeEvents

  return handlers
    .handle("listForks", ({ params, query }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const visible = yield* repositories.listForks(yield* currentUser, target)
        // A public-only token sees the public forks only, as it would through search.
        const forks = (yield* callerIsPublicOnly) ? visible.filter(isPublicRepository) : visible
        // Without `page` Forgejo answers every fork.
        if (query.page === undefined) {
          yield* setPagingHeaders({ total: forks.length, page: "all" })
          return forks.map(render)
        }
        const page = pageFromQuery(query)
        yield* setPagingHeaders({ total: forks.length, page })
        const start = (page.page - 1) * page.limit
        return forks.slice(start, start + page.limit).map(render)
      }))
    .handle("createFork", ({ params, payload }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const principal = yield* requireSignedIn
        yield* requireCodeRead(target)
        // The fork counts against its owner; an unknown organization is the fork's own 422.
        const owner = payload.organization === undefined || payload.organization === ""
          ? Option.some(principal.user)
          : yield* users.findByName(payload.organization)
        if (Option.isSome(owner)) yield* requireWithinQuota(owner.value, "size:repos:all")
        const fork = yield* changes.run(
          repositories.fork(principal.user, target, { organization: payload.organization, name: payload.name }).pipe(
            Effect.mapError(failure)
          ),
          (forked) =>
            Effect.andThen(changes.emit(forked, changes.forkCreated(forked, principal.user)), changes.forked(target, forked, principal.user))
        )
        return render(fork)
      }))
}))
