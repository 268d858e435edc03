/** `GET/POST /orgs/{org}/repos` and the deprecated `POST /org/{org}/repos` (api-facts §4.2, §5.5). */
import { Effect, Option } from "effect"
import { ORG_HIDDEN_MESSAGE } from "@kiln/domain/org/Organization"
import type { User } from "@kiln/domain/user/User"
import { QuotaEnforcement } from "@kiln/domain/quota/QuotaEnforcement"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { currentUser, requireSignedIn } from "../http/Caller.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { refusePublicOnlyOrganization } from "../http/PublicOnlyToken.ts"
import { serializedJsonResponse } from "../http/PlainJsonResponse.ts"
import { requireWithinQuota } from "../http/QuotaGate.ts"
import { makeChangeEvents } from "../webhooks/ChangeEvents.ts"
import { RepositoryListJson } from "../wire/Repository.ts"
import { createInput, makeRepoRequests } from "./RepoRequests.ts"

export const RepoOrgHandlers = HandlerGroup.group(Api, "orgRepos", [ApiErrors, KilnConfig, QuotaEnforcement], Effect.fnUntraced(function*(handlers) {
  const { repositories, errors, publicOnly, failure, render, pageOf } = yield* makeRepoRequests
  const changes = yield* makeChangeEvents

  /**
   * The organization as `/orgs/{org}` routes load it (404 `GetOrgByName` whoever asks); `visible`
   * adds Forgejo's `HasOrgOrUserVisible` check (404 with that label).
   */
  const organization = (name: string, viewer: Option.Option<User>, visible: boolean) =>
    repositories.organization(viewer, name, visible).pipe(
      Effect.mapError((error) =>
        error.message === ORG_HIDDEN_MESSAGE ? errors.notFound(ORG_HIDDEN_MESSAGE) : errors.notFound("GetOrgByName", error.message)),
      // `/orgs/{org}/**` is Forgejo's orgAssignment group, with checkTokenPublicOnly.
      Effect.tap(refusePublicOnlyOrganization)
    )

  const create = (org: User, payload: Parameters<typeof createInput>[0]) =>
    Effect.gen(function*() {
      const principal = yield* requireSignedIn
      yield* requireWithinQuota(org, "size:repos:all")
      const created = yield* changes.run(
        repositories.create(principal.user, org, createInput(payload)).pipe(Effect.mapError(failure)),
        (repository) => changes.repositoryCreated(repository, principal.user)
      )
      return render(created)
    })

  return handlers
    .handle("orgListRepos", ({ params, query }) =>
      Effect.gen(function*() {
        const viewer = yield* currentUser
        const org = yield* organization(params.org, viewer, false)
        const page = pageFromQuery(query)
        const includePrivate = Option.isSome(viewer) && !(yield* publicOnly)
        const result = yield* repositories.listForOwner(viewer, org, includePrivate, page)
        yield* setPagingHeaders({ total: result.total, page })
        return serializedJsonResponse(RepositoryListJson, pageOf(result.items))
      }))
    .handle("createOrgRepo", ({ params, payload }) =>
      Effect.gen(function*() {
        yield* organization(params.org, Option.none(), false)
        const principal = yield* requireSignedIn
        const org = yield* organization(params.org, Option.some(principal.user), true)
        return yield* create(org, payload)
      }))
    .handle("createOrgRepoDeprecated", ({ params, payload }) =>
      Effect.gen(function*() {
        const principal = yield* requireSignedIn
        const org = yield* repositories.organization(Option.some(principal.user), params.org, true).pipe(
          Effect.mapError((error) =>
            error.message === ORG_HIDDEN_MESSAGE ? errors.notFound(ORG_HIDDEN_MESSAGE) : errors.validation(error.message))
        )
        yield* refusePublicOnlyOrganization(org)
        return yield* create(org, payload)
      }))
}))
