/** Teams of an organization and their members: the "organization" group's team endpoints. */
import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { atLeast } from "@kiln/domain/org/AccessMode"
import { Teams } from "@kiln/domain/org/Teams"
import { isPublicRepository, Repositories } from "@kiln/domain/repo/Repositories"
import type { User } from "@kiln/domain/user/User"
import { UserAccounts } from "@kiln/domain/user/UserAccounts"
import { Api } from "../api/Api.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { ApiErrors } from "../http/ApiErrors.ts"
import { currentUser } from "../http/Caller.ts"
import { RouteOrganization } from "../http/OrgAssignment.ts"
import { pageFromQuery, setPagingHeaders } from "../http/Pagination.ts"
import { callerIsPublicOnly, refusePublicOnlyRepository } from "../http/PublicOnlyToken.ts"
import { RouteTeam } from "../http/TeamAssignment.ts"
import { toOrganizationJson } from "../wire/Organization.ts"
import { toRepositoryJson } from "../wire/Repository.ts"
import { toCreateTeamInput, toTeamEditBody, toTeamJson } from "../wire/Team.ts"
import { siteUrls, userJsonFor } from "../wire/User.ts"

export const TeamHandlers = Effect.gen(function*() {
  const teams = yield* Teams
  const accounts = yield* UserAccounts
  const errors = yield* ApiErrors
  const config = yield* KilnConfig
  const urls = siteUrls(config.rootUrl, config.ssh)
  const repositories = yield* Repositories
  /** The repository of a team route, looked up in the team's organization whatever `{org}` says. */
  const teamRepository = (organization: User, name: string) =>
    Effect.flatMap(currentUser, (viewer) =>
      Effect.mapError(repositories.accessible(viewer, organization.name, name), () => errors.notFound())).pipe(
        Effect.tap(refusePublicOnlyRepository)
      )
  /** Adding or removing a team repository needs admin-level access to it (any team member may try). */
  const administeredRepository = (organization: User, name: string) =>
    Effect.flatMap(teamRepository(organization, name), (target) =>
      atLeast(target.access.mode, "admin")
        ? Effect.succeed(target)
        : Effect.fail(errors.forbidden("Must have admin-level access to the repository")))
  /** Forgejo's `GetUserByParams`: 404 labelled `GetUserByName`. */
  const pathUser = (name: string) => Effect.mapError(accounts.byName(name), (e) => errors.notFound("GetUserByName", e.message))

  return {
    orgListTeams: HttpApiBuilder.handler(Api, "organization", "orgListTeams", ({ query }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        const page = pageFromQuery(query)
        const result = yield* teams.list(organization, page)
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map((team) => toTeamJson(team, null))
      })),
    orgCreateTeam: HttpApiBuilder.handler(Api, "organization", "orgCreateTeam", ({ payload }) =>
      Effect.gen(function*() {
        const organization = yield* RouteOrganization
        // Forgejo answers 500 for the reserved name `new` and for a team without units; Kiln 422.
        const team = yield* teams.create(organization, toCreateTeamInput(payload)).pipe(
          Effect.mapError((error) => errors.validation(error.message))
        )
        return toTeamJson(team, toOrganizationJson(organization, urls))
      })),
    orgGetTeam: HttpApiBuilder.handler(Api, "organization", "orgGetTeam", () =>
      Effect.map(RouteTeam, ({ team, organization }) => toTeamJson(team, toOrganizationJson(organization, urls)))),
    orgEditTeam: HttpApiBuilder.handler(Api, "organization", "orgEditTeam", ({ payload }) =>
      Effect.gen(function*() {
        const { team } = yield* RouteTeam
        // A rename onto another team is Forgejo's 500; Kiln answers 422 as for creation.
        const edited = yield* teams.edit(team, toTeamEditBody(payload)).pipe(
          Effect.mapError((error) => errors.validation(error.message))
        )
        return toTeamJson(edited, null)
      })),
    orgDeleteTeam: HttpApiBuilder.handler(Api, "organization", "orgDeleteTeam", () =>
      Effect.flatMap(RouteTeam, ({ team }) => teams.remove(team))),
    orgListTeamMembers: HttpApiBuilder.handler(Api, "organization", "orgListTeamMembers", ({ query }) =>
      Effect.gen(function*() {
        const { team } = yield* RouteTeam
        const viewer = yield* currentUser
        const page = pageFromQuery(query)
        const result = yield* teams.members(team, page)
        yield* setPagingHeaders({ total: result.total, page })
        return result.items.map(userJsonFor({ user: viewer }, urls))
      })),
    orgListTeamMember: HttpApiBuilder.handler(Api, "organization", "orgListTeamMember", ({ params }) =>
      Effect.gen(function*() {
        const { team } = yield* RouteTeam
        const user = yield* pathUser(params.username)
        if (!(yield* teams.isMember(team, user.id))) return yield* errors.notFound()
        return userJsonFor({ user: yield* currentUser }, urls)(user)
      })),
    orgAddTeamMember: HttpApiBuilder.handler(Api, "organization", "orgAddTeamMember", ({ params }) =>
      Effect.gen(function*() {
        const { team } = yield* RouteTeam
        const user = yield* pathUser(params.username)
        yield* teams.addMember(team, user)
      })),
    orgRemoveTeamMember: HttpApiBuilder.handler(Api, "organization", "orgRemoveTeamMember", ({ params }) =>
      Effect.gen(function*() {
        const { team } = yield* RouteTeam
        const user = yield* pathUser(params.username)
        // The last owner: Forgejo's 500, Kiln's 422.
        yield* teams.removeMember(team, user).pipe(Effect.mapError((error) => errors.validation(error.message)))
      })),
    orgListTeamRepos: HttpApiBuilder.handler(Api, "organization", "orgListTeamRepos", ({ query }) =>
      Effect.gen(function*() {
        const { team, organization } = yield* RouteTeam
        const viewer = yield* currentUser
        const page = pageFromQuery(query)
        const publicOnly = yield* callerIsPublicOnly
        // A team with all repositories covers every repository of its organization without rows.
        if (team.includesAllRepositories) {
          const all = yield* repositories.listForOwner(viewer, organization, !publicOnly, page)
          yield* setPagingHeaders({ total: all.total, page })
          return all.items.map((item) => toRepositoryJson(item, urls))
        }
        const listed = yield* teams.repositoryIds(team, page)
        yield* setPagingHeaders({ total: listed.total, page })
        const found = yield* Effect.forEach(listed.items, (repositoryId) =>
          Effect.option(repositories.accessibleById(viewer, repositoryId)), { concurrency: 4 })
        return found.flatMap((item) =>
          Option.isSome(item) && (!publicOnly || isPublicRepository(item.value)) ? [toRepositoryJson(item.value, urls)] : []
        )
          .sort((a, b) => a.name.localeCompare(b.name))
      })),
    orgListTeamRepo: HttpApiBuilder.handler(Api, "organization", "orgListTeamRepo", ({ params }) =>
      Effect.gen(function*() {
        const { team, organization } = yield* RouteTeam
        const target = yield* teamRepository(organization, params.repo)
        if (!(yield* teams.hasRepository(team, target.repository.id))) return yield* errors.notFound()
        return toRepositoryJson(target, urls)
      })),
    orgAddTeamRepository: HttpApiBuilder.handler(Api, "organization", "orgAddTeamRepository", ({ params }) =>
      Effect.gen(function*() {
        const { team, organization } = yield* RouteTeam
        const target = yield* administeredRepository(organization, params.repo)
        yield* teams.addRepository(team, target.repository.id)
      })),
    orgRemoveTeamRepository: HttpApiBuilder.handler(Api, "organization", "orgRemoveTeamRepository", ({ params }) =>
      Effect.gen(function*() {
        const { team, organization } = yield* RouteTeam
        const target = yield* administeredRepository(organization, params.repo)
        yield* teams.removeRepository(team, target.repository.id)
      }))
  }
})
