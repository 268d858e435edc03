/** `GET` and `POST /repos/{o}/{r}/forks` (api-facts §4.11). */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { currentUser, requireSignedIn } from "../http/Caller.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { requireCodeRead } from "./CodeReadGate.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

export const ForkHandlers = HttpApiBuilder.group(Api, "repositoryFork", Effect.fnUntraced(function*(handlers) {
  const { repositories, lookup, failure, render } = yield* makeRepoRequests

  return handlers
    .handle("listForks", ({ params, query }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const forks = yield* repositories.listForks(yield* currentUser, target)
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
        const fork = yield* repositories.fork(principal.user, target, {
          organization: payload.organization,
          name: payload.name
        }).pipe(Effect.mapError(failure))
        return render(fork)
      }))
}))
