/** `/repos/search`, `/repos/{owner}/{repo}` and its collaborators (api-facts §4.1–4.7). */
import { Effect, Option } from "effect"
import { parseSearch } from "@kiln/domain/repo/RepositorySearch"
import type { EditRepositoryInput } from "@kiln/domain/repo/Repositories"
import type { User } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import type { EditRepoOption } from "../api/ReposApi.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { currentUser, requireSignedIn } from "../http/Caller.ts"
import { formInt, pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { serializedJsonResponse } from "../http/PlainJsonResponse.ts"
import { refusePublicOnlyRepository } from "../http/PublicOnlyToken.ts"
import { SearchResultsJson, serializedSearchResults, toCollaboratorPermissionJson } from "../wire/Repository.ts"
import { userJsonFor } from "../wire/User.ts"
import { makeChangeEvents } from "../webhooks/ChangeEvents.ts"
import { makeRepoRequests } from "./RepoRequests.ts"
import { makeRepositoryAnswers } from "./RepositoryAnswers.ts"

export const RepoHandlers = HandlerGroup.group(Api, "repository", [ApiErrors, KilnConfig], Effect.fnUntraced(function*(handlers) {
  const { repositories, errors, urls, publicOnly, failure, lookup, render, pageOf } = yield* makeRepoRequests
  const changes = yield* makeChangeEvents
  const users = yield* UserStore
  const answerOf = makeRepositoryAnswers(render)

  /** Collaborator routes name a user who must exist: 422 otherwise (404 on the permission route). */
  const namedUser = (name: string, missing: (message: string) => ReturnType<typeof errors.validation | typeof errors.notFoundPlain>) =>
    Effect.flatMap(users.findByName(name), (found) =>
      Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(missing(`user does not exist [uid: 0, name: ${name}]`)))

  /** Lookup (404 first, even for anonymous callers), then `reqToken`. */
  const lookupSigned = (params: { readonly owner: string; readonly repo: string }) =>
    Effect.gen(function*() {
      const target = yield* lookup(params)
      const principal = yield* requireSignedIn
      return { target, doer: principal.user }
    })

  const editInput = (payload: (typeof EditRepoOption)[0]["Type"]): EditRepositoryInput => ({
    name: payload.name,
    description: payload.description,
    website: payload.website,
    private: payload.private,
    template: payload.template,
    hasIssues: payload.has_issues,
    // Go's zero values for the nested structs' missing fields.
    internalTracker: payload.internal_tracker === undefined ? undefined : {
      enableTimeTracker: payload.internal_tracker.enable_time_tracker ?? false,
      allowOnlyContributorsToTrackTime: payload.internal_tracker.allow_only_contributors_to_track_time ?? false,
      enableIssueDependencies: payload.internal_tracker.enable_issue_dependencies ?? false
    },
    externalTracker: payload.external_tracker === undefined ? undefined : {
      url: payload.external_tracker.external_tracker_url ?? "",
      format: payload.external_tracker.external_tracker_format ?? "",
      style: payload.external_tracker.external_tracker_style ?? "",
      regexpPattern: payload.external_tracker.external_tracker_regexp_pattern ?? ""
    },
    hasWiki: payload.has_wiki,
    externalWikiUrl: payload.external_wiki === undefined ? undefined : payload.external_wiki.external_wiki_url ?? "",
    globallyEditableWiki: payload.globally_editable_wiki,
    defaultBranch: payload.default_branch,
    hasPullRequests: payload.has_pull_requests,
    hasProjects: payload.has_projects,
    hasReleases: payload.has_releases,
    hasPackages: payload.has_packages,
    hasActions: payload.has_actions,
    ignoreWhitespaceConflicts: payload.ignore_whitespace_conflicts,
    allowMerge: payload.allow_merge_commits,
    allowRebase: payload.allow_rebase,
    allowRebaseMerge: payload.allow_rebase_explicit,
    allowSquash: payload.allow_squash_merge,
    allowFastForwardOnly: payload.allow_fast_forward_only_merge,
    allowManualMerge: payload.allow_manual_merge,
    autodetectManualMerge: payload.autodetect_manual_merge,
    allowRebaseUpdate: payload.allow_rebase_update,
    defaultDeleteBranchAfterMerge: payload.default_delete_branch_after_merge,
    defaultMergeStyle: payload.default_merge_style,
    defaultUpdateStyle: payload.default_update_style,
    defaultAllowMaintainerEdit: payload.default_allow_maintainer_edit,
    archived: payload.archived
  })

  const renderCollaborator = (viewer: User) => userJsonFor({ user: Option.some(viewer) }, urls)

  return handlers
    .handle("repoSearch", ({ query }) =>
      Effect.gen(function*() {
        const viewer = yield* currentUser
        const page = pageFromQuery(query)
        const uid = formInt(query.uid)
        const search = yield* parseSearch(viewer, { ...query, uid }, page, yield* publicOnly).pipe(
          Effect.mapError((error) => errors.validation(error.message))
        )
        const result = yield* repositories.search(viewer, search)
        yield* setPagingHeaders({ total: result.total, page })
        return serializedJsonResponse(SearchResultsJson, serializedSearchResults(pageOf(result.items)))
      }))
    .handle("repoGet", ({ params }) =>
      Effect.map(lookup(params), answerOf))
    .handle("repoGetByID", ({ params }) =>
      Effect.gen(function*() {
        const viewer = yield* currentUser
        const found = yield* repositories.accessibleById(viewer, formInt(params.id)).pipe(Effect.mapError(() => errors.notFound()))
        // Forgejo's GetByID misses checkTokenPublicOnly; the rule of /repos/{owner}/{repo} applies.
        yield* refusePublicOnlyRepository(found)
        return render(found)
      }))
    .handle("repoEdit", ({ params, payload }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const edited = yield* repositories.edit(doer, target, editInput(payload)).pipe(Effect.mapError(failure))
        return render(edited)
      }))
    .handle("repoDelete", ({ params }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const deleted = changes.repositoryDeleted(target, doer)
        yield* changes.run(repositories.remove(doer, target).pipe(Effect.mapError(failure)), () =>
          Effect.succeed({ source: target, events: [deleted] }))
      }))
    .handle("repoListCollaborators", ({ params, query }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const page = pageFromQuery(query)
        const result = yield* repositories.collaborators(target, page)
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map(renderCollaborator(doer))
      }))
    .handle("repoCheckCollaborator", ({ params }) =>
      Effect.gen(function*() {
        const { target } = yield* lookupSigned(params)
        const user = yield* namedUser(params.collaborator, errors.validation)
        if (!(yield* repositories.isCollaborator(target, user))) return yield* errors.notFound()
      }))
    .handle("repoAddCollaborator", ({ params, payload }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const user = yield* namedUser(params.collaborator, errors.validation)
        yield* repositories.addCollaborator(doer, target, user, payload.permission).pipe(Effect.mapError(failure))
      }))
    .handle("repoDeleteCollaborator", ({ params }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const user = yield* namedUser(params.collaborator, errors.validation)
        yield* repositories.removeCollaborator(doer, target, user).pipe(Effect.mapError(failure))
      }))
    .handle("repoGetRepoPermissions", ({ params }) =>
      Effect.gen(function*() {
        const { target, doer } = yield* lookupSigned(params)
        const user = yield* namedUser(params.collaborator, errors.notFoundPlain)
        const mode = yield* repositories.permissionOf(doer, target, user).pipe(Effect.mapError(failure))
        return toCollaboratorPermissionJson(mode, renderCollaborator(doer)(user))
      }))
}))
