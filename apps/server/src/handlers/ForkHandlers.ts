/** `GET` and `POST /repos/{o}/{r}/forks` (api-facts §4.11). */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { currentUser, requireSignedIn } from "../http/Caller.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { requireCodeRead } from "./CodeReadGate.ts"
import { makeChangeEvents } from "../webhooks/ChangeEvents.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

export const ForkHandlers = HttpApiBuilder.group(Api, "repositoryFork", Effect.fnUntraced(function*(handlers) {
  const { repositories, lookup, failure, render } = yield* makeRepoRequests
  const changes = yield* makeChangeEvents

  return handlers
    .handle("listForks", ({ params, query }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const forks = yield* repositories.listForks(yield* currentUser, target)
        yield* setPagingHeaders({ total: forks.length })
        // Without `page` Forgejo answers every fork.
        if (query.page === undefined) return forks.map(render)
        const page = pageFromQuery(query)
        const start = (page.page - 1) * page.limit
        return forks.slice(start, start + page.limit).map(render)
      }))
    .handle("createFork", ({ params, payload }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const principal = yield* requireSignedIn
        yield* requireCodeRead(target)
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
