/** Spec 4.1 handlers: translate wire options to the account services and domain errors to Forgejo's answers. */
import { Effect, Option, Redacted } from "effect"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { Organizations } from "@kiln/domain/org/Organizations"
import { PublicKeys } from "@kiln/domain/user/PublicKeys"
import { UserAccounts } from "@kiln/domain/user/UserAccounts"
import { type AccountSort, UserStore } from "@kiln/domain/user/UserStore"
import { bindVisibility } from "@kiln/domain/user/Visibility"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors, type DomainError } from "../http/ApiErrors.ts"
import { requireSiteAdmin } from "../http/Caller.ts"
import { toCreateOrganizationInput, toOrganizationJson } from "../wire/Organization.ts"
import { toPublicKeyJson } from "../wire/PublicKey.ts"
import { siteUrls, toUserJson } from "../wire/User.ts"
import { createInput, makeRepoRequests } from "./RepoRequests.ts"

const SORTS: ReadonlyArray<AccountSort> = ["oldest", "newest", "alphabetically", "reversealphabetically", "recentupdate", "leastupdate"]

const isBinding = (error: DomainError) => error._tag === "Invalid" && error.message.startsWith("[")

const parseCreatedAt = (text: string | undefined): number | undefined => {
  if (text === undefined || text === "") return undefined
  const millis = Date.parse(text)
  return Number.isNaN(millis) ? undefined : Math.floor(millis / 1000)
}

export const AdminUsersHandlers = HandlerGroup.group(Api, "admin", [ApiErrors, KilnConfig], Effect.fnUntraced(function*(handlers) {
  const accounts = yield* UserAccounts
  const keys = yield* PublicKeys
  const organizations = yield* Organizations
  const errors = yield* ApiErrors
  const config = yield* KilnConfig
  const urls = siteUrls(config.rootUrl, config.ssh)
  const privileged = (user: Parameters<typeof toUserJson>[0]) => toUserJson(user, urls, { signed: true, privileged: true })
  /** Path users are looked up by the generic user-assignment middleware: plain 404 shape. */
  const pathUser = (name: string) => Effect.mapError(accounts.byName(name), (e) => errors.notFoundPlain(e.message))
  const repoRequests = yield* makeRepoRequests
  const userStore = yield* UserStore

  return handlers
    .handle("adminSearchUsers", ({ query }) =>
      Effect.gen(function*() {
        const page = pageFromQuery(query)
        const sort = SORTS.find((s) => s === query.sort) ?? "alphabetically"
        const sourceId = query.source_id === undefined ? undefined : Number.parseInt(query.source_id, 10)
        const result = yield* accounts.list({
          sort,
          page,
          loginName: query.login_name,
          sourceId: sourceId === undefined || Number.isNaN(sourceId) ? undefined : sourceId
        })
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map(privileged)
      }))
    .handle("adminCreateUser", ({ payload }) =>
      Effect.gen(function*() {
        const visibility = yield* bindVisibility(payload.visibility ?? "", "Visibility")
        const user = yield* accounts.create({
          username: payload.username,
          email: payload.email,
          password: payload.password === undefined ? undefined : Redacted.make(payload.password),
          fullName: payload.full_name,
          loginName: payload.login_name,
          sourceId: payload.source_id,
          mustChangePassword: payload.must_change_password,
          restricted: payload.restricted,
          visibility,
          createdAt: parseCreatedAt(payload.created_at)
        })
        return privileged(user)
      }).pipe(Effect.mapError((error) =>
        errors.fromDomain(error, {
          AlreadyExists: 422,
          Invalid: error._tag === "Invalid" && error.message === "PasswordIsRequired" ? 400 : 422
        })
      )))
    .handle("adminEditUser", ({ params, payload }) =>
      Effect.gen(function*() {
        yield* pathUser(params.username)
        const visibility = yield* bindVisibility(payload.visibility ?? "", "Visibility").pipe(
          Effect.mapError((e) => errors.validation(e.message))
        )
        const user = yield* accounts.edit(params.username, {
          sourceId: payload.source_id,
          loginName: payload.login_name,
          email: payload.email,
          fullName: payload.full_name,
          password: payload.password === undefined ? undefined : Redacted.make(payload.password),
          mustChangePassword: payload.must_change_password,
          website: payload.website,
          location: payload.location,
          pronouns: payload.pronouns,
          description: payload.description,
          active: payload.active,
          admin: payload.admin,
          allowGitHook: payload.allow_git_hook,
          allowImportLocal: payload.allow_import_local,
          maxRepoCreation: payload.max_repo_creation,
          prohibitLogin: payload.prohibit_login,
          allowCreateOrganization: payload.allow_create_organization,
          restricted: payload.restricted,
          visibility
        }).pipe(Effect.mapError((error) =>
          error._tag === "NotFound"
            ? errors.notFoundPlain(error.message)
            : error._tag === "Invalid" && (isBinding(error) || error.message.startsWith("source_id"))
            ? errors.validation(error.message)
            : errors.badRequest(error.message)
        ))
        return privileged(user)
      }))
    .handle("adminDeleteUser", ({ params, query }) =>
      Effect.gen(function*() {
        const doer = yield* requireSiteAdmin
        yield* accounts.remove(params.username, doer.user, query.purge === "true").pipe(
          Effect.mapError((error) =>
            error._tag === "NotFound" ? errors.notFoundPlain(error.message) : errors.validation(error.message)
          )
        )
      }))
    .handle("adminCreatePublicKey", ({ params, payload }) =>
      Effect.gen(function*() {
        const owner = yield* pathUser(params.username)
        const key = yield* keys.add(owner, { title: payload.title, key: payload.key, readOnly: payload.read_only ?? false })
          .pipe(Effect.mapError((error) => errors.validation(error.message)))
        return toPublicKeyJson(key, config.rootUrl, privileged(owner))
      }))
    .handle("adminDeleteUserPublicKey", ({ params }) =>
      Effect.gen(function*() {
        const owner = yield* pathUser(params.username)
        const id = Number.parseInt(params.id, 10)
        if (!/^\d+$/.test(params.id)) return yield* errors.notFound()
        yield* keys.removeFor(owner, id).pipe(Effect.mapError((error) =>
          error._tag === "NotFound" ? errors.notFound() : errors.forbidden(error.message)
        ))
      }))
    .handle("adminCreateOrg", ({ params, payload }) =>
      Effect.gen(function*() {
        const owner = yield* pathUser(params.username)
        // An owner who may not create organizations is Forgejo's 500; Kiln answers no input with
        // a 5xx: 403 with Forgejo's message.
        const created = yield* organizations.createForUser(owner, toCreateOrganizationInput(payload)).pipe(
          Effect.mapError((error) => errors.fromDomain(error, { AlreadyExists: 422, Invalid: 422 }))
        )
        return toOrganizationJson(created.organization, urls)
      }))
    .handle("adminCreateRepo", ({ params, payload }) =>
      Effect.gen(function*() {
        // The owner may be an organization; the admin is the doer.
        const owner = yield* userStore.findByName(params.username)
        if (Option.isNone(owner)) return yield* errors.notFoundPlain(`user does not exist [uid: 0, name: ${params.username}]`)
        const principal = yield* requireSiteAdmin
        const created = yield* repoRequests.repositories.create(principal.user, owner.value, createInput(payload)).pipe(
          Effect.mapError(repoRequests.failure)
        )
        return repoRequests.render(created)
      }))
    .handle("adminGetAllOrgs", ({ query }) =>
      Effect.gen(function*() {
        const page = pageFromQuery(query)
        const result = yield* organizations.listAll(page)
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map((organization) => toOrganizationJson(organization, urls))
      }))
}))
