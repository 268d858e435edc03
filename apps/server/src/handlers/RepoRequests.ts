/**
 * What every repository route shares: the repository lookup with Forgejo's 404 shapes, the
 * public-only token rule, and the statuses of repository errors. Built once per handler group.
 */
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { isPublicOnly, PUBLIC_ONLY_REPO_MESSAGE } from "@kiln/domain/auth/AccessTokenScope"
import type { AlreadyExists, Conflict, Forbidden, Invalid, NotFound } from "@kiln/domain/errors"
import type { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import { type AccessibleRepository, type CreateRepositoryInput, isPublicRepository, Repositories } from "@kiln/domain/repo/Repositories"
import { API_PREFIX } from "../api/Paths.ts"
import type { CreateRepoOption } from "../api/UserReposApi.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors, ApiMovedPermanently } from "../http/ApiErrors.ts"
import { Caller } from "../http/Caller.ts"
import { callerIsPublicOnly } from "../http/PublicOnlyToken.ts"
import { movedLocation } from "../http/RepositoryRedirect.ts"
import { toRepositoryJson } from "../wire/Repository.ts"
import { serialize, serializedArray } from "../wire/SerializedJson.ts"
import { siteUrls } from "../wire/User.ts"
import { keptPerRepository } from "./KeptRenderings.ts"

export { PUBLIC_ONLY_REPO_MESSAGE }

export type RepositoryFailure = Invalid | Forbidden | AlreadyExists | Conflict | NotFound | GitStorageFailure

/** CreateRepoOption as the domain takes it. */
export const createInput = (payload: (typeof CreateRepoOption)[0]["Type"]): CreateRepositoryInput => ({
  name: payload.name,
  description: payload.description,
  private: payload.private,
  issueLabels: payload.issue_labels,
  autoInit: payload.auto_init,
  template: payload.template,
  gitignores: payload.gitignores,
  license: payload.license,
  readme: payload.readme,
  defaultBranch: payload.default_branch,
  trustModel: payload.trust_model,
  objectFormatName: payload.object_format_name
})

export const makeRepoRequests = Effect.gen(function*() {
  const repositories = yield* Repositories
  const errors = yield* ApiErrors
  const config = yield* KilnConfig
  const urls = siteUrls(config.rootUrl, config.ssh)

  const publicOnlyFor = (caller: Caller["Service"]) =>
    Option.match(caller.principal, {
      onNone: () => false,
      onSome: (principal) => Option.match(principal.scopes, { onNone: () => false, onSome: isPublicOnly })
    })

  const publicOnly = callerIsPublicOnly

  /**
   * Statuses: Invalid 422 (400 for an unknown readme template), Forbidden 403, AlreadyExists 409,
   * NotFound 404, Conflict and disk failures 500.
   */
  const failure = (error: RepositoryFailure) => {
    switch (error._tag) {
      case "Invalid":
        return error.field === "readme" ? errors.badRequest(error.message) : errors.validation(error.message)
      case "GitStorageFailure":
        return errors.internal(error.message)
      case "Conflict":
        return errors.fromDomain(error, { Conflict: 500 })
      default:
        return errors.fromDomain(error)
    }
  }

  /**
   * The repository of `/repos/{owner}/{repo}/...` for the caller, or Forgejo's 404s, the 301 of a
   * renamed repository's old name, and the public-only 403.
   */
  const lookup = (params: { readonly owner: string; readonly repo: string }) =>
    Effect.flatMap(Effect.service(Caller), (caller) =>
      repositories.accessible(Option.map(caller.principal, (principal) => principal.user), params.owner, params.repo).pipe(
        Effect.catchTags({
          NotFound: (error) =>
            Effect.fail(
              error.message.startsWith("user does not exist")
                ? errors.notFound("GetUserByName", error.message)
                : errors.notFound()
            ),
          RepositoryMoved: (moved) =>
            Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
              const location = movedLocation(config.rootUrl, request.url, `${API_PREFIX}/repos/`, moved)
              return Effect.fail(location === undefined ? errors.notFound() : new ApiMovedPermanently({ location }))
            })
        }),
        Effect.flatMap((found) =>
          publicOnlyFor(caller) && !isPublicRepository(found)
            ? Effect.fail(errors.forbidden(PUBLIC_ONLY_REPO_MESSAGE))
            : Effect.succeed(found)
        )
      ))

  const render = (item: AccessibleRepository) => toRepositoryJson(item, urls)
  // A page is put together from each repository's JSON text, kept while the repository is unchanged.
  const serialized = keptPerRepository((item: AccessibleRepository) => serialize(render(item)))
  const pageOf = (items: ReadonlyArray<AccessibleRepository>) => serializedArray(items.map(serialized))

  return { repositories, errors, config, urls, publicOnly, failure, lookup, render, pageOf }
})
