/** `GET/POST /user/repos` and `GET /users/{username}/repos`. */
import { Effect, Option } from "effect"
import { parseOwnSearch } from "@kiln/domain/repo/RepositorySearch"
import { UserStore } from "@kiln/domain/user/UserStore"
import { QuotaEnforcement } from "@kiln/domain/quota/QuotaEnforcement"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { currentUser, requireSignedIn } from "../http/Caller.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { refusePublicOnlyUser } from "../http/PublicOnlyToken.ts"
import { serializedJsonResponse } from "../http/PlainJsonResponse.ts"
import { requireWithinQuota } from "../http/QuotaGate.ts"
import { makeChangeEvents } from "../webhooks/ChangeEvents.ts"
import { RepositoryListJson } from "../wire/Repository.ts"
import { createInput, makeRepoRequests } from "./RepoRequests.ts"

export const RepoUserHandlers = HandlerGroup.group(Api, "userRepos", [ApiErrors, KilnConfig, QuotaEnforcement], Effect.fnUntraced(function*(handlers) {
  const { repositories, errors, publicOnly, failure, render, pageOf } = yield* makeRepoRequests
  const changes = yield* makeChangeEvents
  const users = yield* UserStore

  return handlers
    .handle("userCurrentListRepos", ({ query }) =>
      Effect.gen(function*() {
        const principal = yield* requireSignedIn
        const page = pageFromQuery(query)
        const search = yield* parseOwnSearch(principal.user, (query.order_by ?? "").trim(), page, yield* publicOnly).pipe(
          Effect.mapError((error) => errors.validation(error.message))
        )
        const result = yield* repositories.search(Option.some(principal.user), search)
        yield* setPagingHeaders({ total: result.total, page })
        return serializedJsonResponse(RepositoryListJson, pageOf(result.items))
      }))
    .handle("createCurrentUserRepo", ({ payload }) =>
      Effect.gen(function*() {
        const principal = yield* requireSignedIn
        yield* requireWithinQuota(principal.user, "size:repos:all")
        const created = yield* changes.run(
          repositories.create(principal.user, principal.user, createInput(payload)).pipe(Effect.mapError(failure)),
          (repository) => changes.repositoryCreated(repository, principal.user)
        )
        return render(created)
      }))
    .handle("userListRepos", ({ params, query }) =>
      Effect.gen(function*() {
        const viewer = yield* currentUser
        const found = yield* users.findByName(params.username)
        if (Option.isNone(found)) return yield* errors.notFoundPlain(`user does not exist [uid: 0, name: ${params.username}]`)
        yield* refusePublicOnlyUser(found.value)
        const page = pageFromQuery(query)
        const includePrivate = Option.isSome(viewer) && !(yield* publicOnly)
        const result = yield* repositories.listForOwner(viewer, found.value, includePrivate, page)
        yield* setPagingHeaders({ total: result.total, page })
        return serializedJsonResponse(RepositoryListJson, pageOf(result.items))
      }))
}))
