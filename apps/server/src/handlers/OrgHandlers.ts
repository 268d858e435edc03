/**
 * Spec 4.3 handlers: organizations, their listings and members; the team and hook endpoints of the
 * same group come from TeamHandlers and OrgHookHandlers. The organization or team of the path and
 * the gates are resolved by the OrgAssignment and TeamAssignment middlewares.
 */
import { Effect, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import { Organizations } from "@kiln/domain/org/Organizations"
import { OrgMembers } from "@kiln/domain/org/OrgMembers"
import type { User } from "@kiln/domain/user/User"
import { UserAccounts } from "@kiln/domain/user/UserAccounts"
import { Api } from "../api/Api.ts"
import * as HandlerGroup from "./HandlerGroup.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { currentUser, requireSignedIn } from "../http/Caller.ts"
import { RouteOrganization } from "../http/OrgAssignment.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { callerIsPublicOnly } from "../http/PublicOnlyToken.ts"
import { toCreateOrganizationInput, toEditOrganizationInput, toOrganizationJson } from "../wire/Organization.ts"
import { siteUrls, userJsonFor } from "../wire/User.ts"
import { OrgHookHandlers } from "./OrgHookHandlers.ts"
import { TeamHandlers } from "./TeamHandlers.ts"

/** The `page` and `limit` query values. */
interface PagingParams {
  readonly page?: string | undefined
  readonly limit?: string | undefined
}

export const OrgHandlers = HandlerGroup.group(Api, "organization", [ApiErrors, KilnConfig], Effect.fnUntraced(function*(handlers) {
  const organizations = yield* Organizations
  const members = yield* OrgMembers
  const accounts = yield* UserAccounts
  const errors = yield* ApiErrors
  const config = yield* KilnConfig
  const urls = siteUrls(config.rootUrl, config.ssh)
  /** Forgejo's `AppSubURL`: the root URL's path without the trailing slash. */
  const subPath = new URL(config.rootUrl).pathname.replace(/\/$/, "")
  const teams = yield* TeamHandlers
  const hooks = yield* OrgHookHandlers

  const toJson = (organization: User) => toOrganizationJson(organization, urls)
  /** Forgejo's `GetUserByParams`: 404 labelled `GetUserByName`. */
  const pathUser = (name: string) => Effect.mapError(accounts.byName(name), (e) => errors.notFound("GetUserByName", e.message))
  const signedIn = Effect.provideService(requireSignedIn, ApiErrors, errors)

  const listFor = (viewer: User, user: User, query: PagingParams) =>
    Effect.gen(function*() {
      const page = pageFromQuery(query)
      // A public-only token lists what anyone may see: public organizations, public memberships.
      const result = yield* organizations.listForUser((yield* callerIsPublicOnly) ? Option.none() : Option.some(viewer), user, page)
      yield* setPagingHeaders({ total: result.total, page })
      return result.items.map(toJson)
    })

  const listMembers = (query: PagingParams, publicOnly: boolean) =>
    Effect.gen(function*() {
      const organization = yield* RouteOrganization
      const viewer = yield* currentUser
      const page = pageFromQuery(query)
      const result = publicOnly || Option.isNone(viewer)
        ? yield* members.listPublic(organization, page)
        : yield* members.list(organization, viewer.value, page)
      yield* setPagingHeaders({ total: result.total, page })
      return result.items.map(userJsonFor({ user: viewer }, urls))
    })

  return handlers
    .handle("orgGetAll", ({ query }) =>
      Effect.gen(function*() {
        const viewer = yield* currentUser
        const page = pageFromQuery(query)
        // Forgejo reads the token's public-only flag only after this handler has answered; Kiln before.
        const result = yield* organizations.list(viewer, { page, publicOnly: yield* callerIsPublicOnly })
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map(toJson)
      }))
    .handle("orgCreate", ({ payload }) =>
      Effect.gen(function*() {
        const principal = yield* signedIn
        const created = yield* organizations.create(principal.user, toCreateOrganizationInput(payload)).pipe(
          Effect.mapError((error) => error._tag === "Forbidden" ? errors.forbidden(error.message) : errors.validation(error.message))
        )
        return toJson(created.organization)
      }))
    .handle("orgListCurrentUserOrgs", ({ query }) =>
      Effect.flatMap(signedIn, (principal) => listFor(principal.user, principal.user, query)))
    .handle("orgListUserOrgs", ({ params, query }) =>
      Effect.gen(function*() {
        // The user-assignment middleware runs before reqToken and answers in the plain shape.
        const user = yield* Effect.mapError(accounts.byName(params.username), (e) => errors.notFoundPlain(e.message))
        const principal = yield* signedIn
        return yield* listFor(principal.user, user, query)
      }))
    .handle("orgGet", () =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const viewer = yield* currentUser
        return toOrganizationJson(organization, urls, Option.isNone(viewer))
      }))
    .handle("orgEdit", ({ payload }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const edited = yield* organizations.edit(organization, toEditOrganizationInput(payload)).pipe(
          Effect.mapError((error) => errors.validation(error.message))
        )
        return toJson(edited)
      }))
    .handle("orgDelete", () =>
      Effect.flatMap(RouteOrganization, (organization) =>
        // Still owning repositories is Forgejo's 500; Kiln answers 422.
        Effect.mapError(organizations.remove(organization), (error) => errors.validation(error.message))))
    .handle("orgListMembers", ({ query }) => listMembers(query, false))
    .handle("orgIsMember", ({ params }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const target = yield* pathUser(params.username)
        const principal = yield* signedIn
        const answer = yield* members.membership(organization, principal.user, target)
        if (answer === "notMember") return yield* errors.notFound()
        if (answer === "askPublicMembers") {
          const location = `${subPath}/api/v1/orgs/${encodeURIComponent(organization.name)}/public_members/${
            encodeURIComponent(target.name)
          }`
          return HttpServerResponse.redirect(location, { status: 303 })
        }
      }))
    .handle("orgDeleteMember", ({ params }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const target = yield* pathUser(params.username)
        // The last owner: Forgejo's 500, Kiln's 422.
        yield* Effect.mapError(members.remove(organization, target), (error) => errors.validation(error.message))
      }))
    .handle("orgListPublicMembers", ({ query }) => listMembers(query, true))
    .handle("orgIsPublicMember", ({ params }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const target = yield* pathUser(params.username)
        if (!(yield* members.isPublicMember(organization.id, target.id))) return yield* errors.notFound()
      }))
    .handle("orgPublicizeMember", ({ params }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const target = yield* pathUser(params.username)
        const principal = yield* signedIn
        yield* Effect.mapError(members.publicize(organization, principal.user, target), (e) => errors.forbidden(e.message))
      }))
    .handle("orgConcealMember", ({ params }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const target = yield* pathUser(params.username)
        const principal = yield* signedIn
        yield* Effect.mapError(members.conceal(organization, principal.user, target), (e) => errors.forbidden(e.message))
      }))
    .handle("orgListTeams", teams.orgListTeams)
    .handle("orgCreateTeam", teams.orgCreateTeam)
    .handle("orgGetTeam", teams.orgGetTeam)
    .handle("orgEditTeam", teams.orgEditTeam)
    .handle("orgDeleteTeam", teams.orgDeleteTeam)
    .handle("orgListTeamMembers", teams.orgListTeamMembers)
    .handle("orgListTeamMember", teams.orgListTeamMember)
    .handle("orgAddTeamMember", teams.orgAddTeamMember)
    .handle("orgRemoveTeamMember", teams.orgRemoveTeamMember)
    .handle("orgListTeamRepos", teams.orgListTeamRepos)
    .handle("orgListTeamRepo", teams.orgListTeamRepo)
    .handle("orgAddTeamRepository", teams.orgAddTeamRepository)
    .handle("orgRemoveTeamRepository", teams.orgRemoveTeamRepository)
    .handle("orgListHooks", hooks.orgListHooks)
    .handle("orgCreateHook", hooks.orgCreateHook)
    .handle("orgGetHook", hooks.orgGetHook)
    .handle("orgEditHook", hooks.orgEditHook)
    .handle("orgDeleteHook", hooks.orgDeleteHook)
    .handle("orgListHookDeliveries", hooks.orgListHookDeliveries)
    .handle("orgGetHookDelivery", hooks.orgGetHookDelivery)
    .handle("orgRedeliverHookDelivery", hooks.orgRedeliverHookDelivery)
}))
