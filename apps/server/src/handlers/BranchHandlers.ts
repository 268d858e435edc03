/** `/repos/{owner}/{repo}/branches` and the repository's signing key (api-facts §4.6, §6). */
import { Effect, Option } from "effect"
import type { Branch } from "@kiln/domain/git/Branch"
import { EMPTY_REPOSITORY_MESSAGE, OLD_BRANCH_MISSING_MESSAGE } from "@kiln/domain/git/Branch"
import { Branches, type CreateBranchFailure, type DeleteBranchFailure } from "@kiln/domain/git/Branches"
import { atLeast } from "@kiln/domain/org/AccessMode"
import type { AccessibleRepository } from "@kiln/domain/repo/Repositories"
import { signingKeyFor } from "@kiln/domain/signing/SigningKeyResolution"
import { SigningKeys } from "@kiln/domain/signing/SigningKeys"
import { UserStore } from "@kiln/domain/user/UserStore"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors, ApiLocked } from "../http/ApiErrors.ts"
import { currentUser, requireSignedIn } from "../http/Caller.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { type BranchView, toBranchJson } from "../wire/Branch.ts"
import { makeChangeEvents } from "../webhooks/ChangeEvents.ts"
import { makeRepoRequests } from "./RepoRequests.ts"

export const BranchHandlers = HandlerGroup.group(Api, "repositoryBranches", [ApiErrors, KilnConfig], Effect.fnUntraced(function*(handlers) {
  const { errors, urls, lookup } = yield* makeRepoRequests
  const branches = yield* Branches
  const users = yield* UserStore
  const signingKeys = yield* SigningKeys
  const changes = yield* makeChangeEvents

  const failure = (error: CreateBranchFailure | DeleteBranchFailure) => {
    switch (error._tag) {
      case "RepositoryArchived":
        return new ApiLocked({ message: error.message, url: errors.url })
      case "BranchSourceMissing":
        return errors.notFoundPlain(error.message)
      case "GitStorageFailure":
        return errors.internal(error.message)
      case "NotFound":
        // Forgejo's `ctx.Error(404, "", text)` for these two; a missing branch is `ctx.NotFound(err)`.
        return error.message === EMPTY_REPOSITORY_MESSAGE || error.message === OLD_BRANCH_MISSING_MESSAGE
          ? errors.notFoundPlain(error.message)
          : errors.notFound(undefined, error.message)
      case "AlreadyExists":
      case "Conflict":
        return errors.conflict(error.message)
      case "Invalid":
        return errors.validation(error.message)
      case "Forbidden":
        return errors.forbidden(error.message)
    }
  }

  /** How the caller sees these branches: push/merge flags and the accounts behind commit e-mails. */
  const viewOf = (target: AccessibleRepository, shown: ReadonlyArray<Branch>) =>
    Effect.gen(function*() {
      const viewer = yield* currentUser
      const emails = [...new Set(shown.flatMap((branch) => [branch.author.email, branch.committer.email]))]
      const accounts = new Map<string, string>()
      for (const email of emails) {
        const account = yield* users.findByEmail(email)
        if (Option.isSome(account)) accounts.set(email, account.value.name)
      }
      const view: BranchView = {
        htmlUrl: `${urls.rootUrl}${encodeURIComponent(target.owner.name)}/${encodeURIComponent(target.repository.name)}`,
        canWrite: Option.isSome(viewer) && atLeast(target.access.units["repo.code"], "write"),
        usernameOf: (email) => accounts.get(email) ?? ""
      }
      return view
    })

  /** The branch name a path holds: its first segment and the rest, if any. */
  const branchName = (params: { readonly branch: string; readonly "*"?: string | undefined }) =>
    params["*"] === undefined || params["*"] === "" ? params.branch : `${params.branch}/${params["*"]}`

  const render = (target: AccessibleRepository, branch: Branch) =>
    Effect.map(viewOf(target, [branch]), (view) => toBranchJson(branch, view))

  return handlers
    .handle("repoListBranches", ({ params, query }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const page = pageFromQuery(query)
        const listed = yield* branches.list(target, page).pipe(Effect.mapError((error) => errors.forbidden(error.message)))
        if (Option.isNone(listed)) {
          yield* setPagingHeaders({ total: 0, page })
          return null
        }
        yield* setPagingHeaders({ total: listed.value.total, page })
        const view = yield* viewOf(target, listed.value.items)
        return listed.value.items.map((branch) => toBranchJson(branch, view))
      }))
    .handle("repoGetBranch", ({ params }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const branch = yield* branches.get(target, branchName(params)).pipe(Effect.mapError((error) =>
          error._tag === "Forbidden" ? errors.forbidden(error.message) : errors.notFound(undefined, error.message)))
        return yield* render(target, branch)
      }))
    .handle("repoCreateBranch", ({ params, payload }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const principal = yield* requireSignedIn
        const branch = yield* changes.afterGit(
          branches.create(target, {
            newBranchName: payload.new_branch_name ?? "",
            oldRefName: payload.old_ref_name ?? "",
            oldBranchName: payload.old_branch_name ?? ""
          }).pipe(Effect.mapError(failure)),
          (created) => changes.branchCreated(target, principal.user, created.name, created.commitId)
        )
        return yield* render(target, branch)
      }))
    .handle("repoDeleteBranch", ({ params }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const principal = yield* requireSignedIn
        const name = branchName(params)
        const before = yield* Effect.option(branches.get(target, name))
        yield* changes.afterGit(
          branches.remove(target, name).pipe(Effect.mapError(failure)),
          () =>
            Option.isSome(before)
              ? changes.branchDeleted(target, principal.user, name, before.value.commitId)
              : Effect.succeed({ source: target, events: [] })
        )
      }))
    .handle("repoSigningKey", ({ params }) =>
      Effect.gen(function*() {
        const target = yield* lookup(params)
        const key = signingKeyFor(signingKeys, { owner: target.owner.name, name: target.repository.name })
        return yield* key.armoredPublicKey().pipe(Effect.mapError((failed) => errors.internal(failed.message)))
      }))
}))
