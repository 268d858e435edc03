/**
 * Forgejo's `orgAssignment` for `/teams/{id}/**` with the gates of that group (api-facts §0.4),
 * as a middleware so that it runs before the body is decoded:
 * 1. the team by id (an id that is not a number reads as 0): the generic 404;
 * 2. `reqToken` (401), then `reqTeamMembership`: team members, organization owners and site admins
 *    pass, other organization members get 403 `Must be a team member`, everyone else 404 (so a
 *    private organization's teams stay hidden from outsiders without a check of its own);
 * 3. with `TeamGate` "owner", `reqOrgOwnership`: 404 for anyone but owners and site admins; with
 *    "repositories" (adding or removing a team's repository) owners and site admins too, but the
 *    others get 403, as Forgejo's handler answers a member without admin access to the repository
 *    (Forgejo lets repository admins through; Kiln keeps it to owners, review finding 11);
 * 4. `checkTokenPublicOnly`: a public-only token is refused the teams of an organization that is
 *    not public (403; Forgejo's check finds no organization in this group and lets it through).
 */
import { Context, Effect, Layer, Option } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { OrganizationStore } from "@kiln/domain/org/OrganizationStore"
import { OrgMembers } from "@kiln/domain/org/OrgMembers"
import type { Team } from "@kiln/domain/org/Team"
import { Teams } from "@kiln/domain/org/Teams"
import type { User } from "@kiln/domain/user/User"
import { ApiErrors, ApiForbidden, ApiNotFound, ApiUnauthorized } from "./ApiErrors.ts"
import { Caller, requireSignedIn } from "./Caller.ts"
import { refusePublicOnlyOrganization } from "./PublicOnlyToken.ts"

/** Declared on endpoints with `.annotate(TeamGate, "owner")`; "member" is `reqTeamMembership` alone. */
export const TeamGate = Context.Reference<"member" | "owner" | "repositories">("@kiln/server/TeamGate", {
  defaultValue: () => "member"
})

/** Forgejo's reqOrgOwnership text, for the members refused a team's repositories. */
export const MUST_BE_ORG_OWNER_MESSAGE = "Must be an organization owner"

/** The team named in the path with its organization. */
export class RouteTeam extends Context.Service<RouteTeam, {
  readonly team: Team
  readonly organization: User
}>()("@kiln/server/RouteTeam") {}

export class TeamAssignment extends HttpApiMiddleware.Service<TeamAssignment, {
  requires: Caller
  provides: RouteTeam
}>()("@kiln/server/TeamAssignment", { error: [ApiUnauthorized, ApiForbidden, ApiNotFound] }) {}

/** Go's `ctx.ParamsInt64`: a path id that is not a 64-bit integer reads as 0 (then nothing is found). */
export const idParam = (text: string | undefined): number => {
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return 0
  const id = Number.parseInt(text, 10)
  return Number.isSafeInteger(id) ? id : 0
}

export const layer = Layer.effect(
  TeamAssignment,
  Effect.gen(function*() {
    const teams = yield* Teams
    const organizationStore = yield* OrganizationStore
    const members = yield* OrgMembers
    const errors = yield* ApiErrors
    const signedIn = Effect.provideService(requireSignedIn, ApiErrors, errors)
    const notFound = () => errors.notFound()

    return TeamAssignment.of((httpEffect, { endpoint }) =>
      Effect.gen(function*() {
        const params = yield* HttpRouter.params
        const team = yield* Effect.mapError(teams.byId(idParam(params["id"])), notFound)
        const organization = yield* Effect.flatMap(organizationStore.findById(team.orgId), (found) =>
          Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(notFound()))
        const principal = yield* signedIn
        yield* members.requireTeamAccess(principal.user, team).pipe(
          Effect.mapError((error) => error._tag === "Forbidden" ? errors.forbidden(error.message) : notFound())
        )
        const gate = Context.get(endpoint.annotations, TeamGate)
        if (gate !== "member") {
          yield* Effect.mapError(
            members.requireTeamOwner(principal.user, team),
            () => gate === "owner" ? notFound() : errors.forbidden(MUST_BE_ORG_OWNER_MESSAGE)
          )
        }
        yield* Effect.provideService(refusePublicOnlyOrganization(organization), ApiErrors, errors)
        return yield* Effect.provideService(httpEffect, RouteTeam, { team, organization })
      })
    )
  })
)
