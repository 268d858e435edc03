/**
 * Teams of an organization (api-facts §5.3): creation and edits with Forgejo's permission rules,
 * deletion, membership (which also makes organization membership) with the last-owner rule, and
 * the repositories listed for a team. [routers/api/v1/org/team.go, models/org_team.go]
 */
import { Context, Effect, Layer, Option } from "effect"
import { type AlreadyExists, type Conflict, Invalid, NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { User } from "../user/User.ts"
import { OrganizationSettings } from "./Organizations.ts"
import { type NewTeam, type Team, teamNotFoundMessage } from "./Team.ts"
import { bindTeamName, checkUsableTeamName, teamNameBindingRule } from "./TeamName.ts"
import { applyTeamEdit, permissionForNewTeam, type TeamEditBody, type TeamPermissionBody } from "./TeamPermission.ts"
import { TeamStore } from "./TeamStore.ts"

/** CreateTeamOption. */
export interface CreateTeamInput extends TeamPermissionBody {
  readonly name: string
  readonly description?: string | undefined
  readonly includesAllRepositories?: boolean | undefined
  readonly canCreateOrgRepo?: boolean | undefined
}

export class Teams extends Context.Service<Teams, {
  /**
   * `POST /orgs/{org}/teams` (owners). Errors in order: Invalid `[Name]: Required|AlphaDashDot|MaxSize`,
   * `[Description]: MaxSize` (422); Invalid `units permission should not be empty` (Forgejo: 500);
   * Invalid `name is reserved [name: new]` (Forgejo: 500); AlreadyExists
   * `team already exists [org_id: N, name: <lower>]` (422, case-insensitive).
   */
  readonly create: (organization: User, input: CreateTeamInput) => Effect.Effect<Team, Invalid | AlreadyExists>
  /** NotFound `team does not exist [org_id 0, team_id N, name: ]` (Forgejo: the generic 404). */
  readonly byId: (id: number) => Effect.Effect<Team, NotFound>
  /**
   * `PATCH /teams/{id}` (owners), Forgejo's field semantics (see `applyTeamEdit`). Errors:
   * Invalid `[Name]: AlphaDashDot|MaxSize`, `[Description]: MaxSize` (422); AlreadyExists
   * `team already exists [...]` when renamed onto another team (Forgejo: 500).
   */
  readonly edit: (team: Team, input: TeamEditBody) => Effect.Effect<Team, Invalid | AlreadyExists>
  /** `DELETE /teams/{id}`; members left without a team stop being organization members. */
  readonly remove: (team: Team) => Effect.Effect<void>
  /** `GET /orgs/{org}/teams`: by lower-cased name, `total` for X-Total-Count. */
  readonly list: (organization: User, page: PageRequest) => Effect.Effect<Page<Team>>
  /** The user's teams in the organization. */
  readonly teamsOf: (orgId: number, userId: number) => Effect.Effect<ReadonlyArray<Team>>
  /** The user's teams covering a repository of the organization: the `teams` of `repositoryAccess`. */
  readonly coveringTeams: (orgId: number, userId: number, repoId: number) => Effect.Effect<ReadonlyArray<Team>>
  readonly isMember: (team: Team, userId: number) => Effect.Effect<boolean>
  /** `GET /teams/{id}/members`: by full name then name; `total` is the team's member count. */
  readonly members: (team: Team, page: PageRequest) => Effect.Effect<Page<User>>
  /** `PUT /teams/{id}/members/{u}`: idempotent, also when called concurrently; makes an org member. */
  readonly addMember: (team: Team, user: User) => Effect.Effect<void>
  /**
   * `DELETE /teams/{id}/members/{u}`: no-op for a non-member. Conflict
   * `user is the last member of owner team [uid: N]` for the Owners team's last member (Forgejo: 500).
   */
  readonly removeMember: (team: Team, user: User) => Effect.Effect<void, Conflict>
  /** `GET /teams/{id}/repos`: ids of the listed repositories; `total` for X-Total-Count. */
  readonly repositoryIds: (team: Team, page: PageRequest) => Effect.Effect<Page<number>>
  /** The team covers the repository of its organization: all repositories, or listed. */
  readonly hasRepository: (team: Team, repoId: number) => Effect.Effect<boolean>
  /** `PUT /teams/{id}/repos/{org}/{repo}`: lists a repository of the team's organization (idempotent). */
  readonly addRepository: (team: Team, repoId: number) => Effect.Effect<void>
  /** `DELETE /teams/{id}/repos/{org}/{repo}`: a no-op for a team with all repositories, as in Forgejo. */
  readonly removeRepository: (team: Team, repoId: number) => Effect.Effect<void>
}>()("@kiln/domain/org/Teams") {}

const bindDescription = (description: string | undefined): Effect.Effect<void, Invalid> =>
  description !== undefined && [...description].length > 255
    ? Effect.fail(new Invalid({ field: "Description", message: "[Description]: MaxSize" }))
    : Effect.void

export const layer: Layer.Layer<Teams, never, TeamStore> = Layer.effect(
  Teams,
  Effect.gen(function*() {
    const store = yield* TeamStore

    return Teams.of({
      create: (organization, input) =>
        Effect.gen(function*() {
          yield* bindTeamName(input.name, "Name")
          yield* bindDescription(input.description)
          const { permission, units } = yield* permissionForNewTeam(input)
          yield* checkUsableTeamName(input.name)
          const team: NewTeam = {
            orgId: organization.id,
            name: input.name,
            description: input.description ?? "",
            permission,
            includesAllRepositories: input.includesAllRepositories ?? false,
            canCreateOrgRepo: input.canCreateOrgRepo ?? false,
            units
          }
          return yield* store.insert(team)
        }),
      byId: (id) =>
        Effect.flatMap(store.findById(id), (found) =>
          Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(new NotFound({ message: teamNotFoundMessage(id) }))),
      edit: (team, input) =>
        Effect.gen(function*() {
          const rule = input.name === undefined || input.name === "" ? undefined : teamNameBindingRule(input.name)
          if (rule !== undefined) return yield* new Invalid({ field: "Name", message: `[Name]: ${rule}` })
          yield* bindDescription(input.description)
          const edit = applyTeamEdit(team, input)
          return yield* store.update(edit.team, edit.unitsReplaced)
        }),
      remove: (team) => store.remove(team),
      list: (organization, page) => store.listForOrg(organization.id, page),
      teamsOf: (orgId, userId) => store.listForMember(orgId, userId),
      coveringTeams: (orgId, userId, repoId) => store.listCoveringRepository(orgId, userId, repoId),
      isMember: (team, userId) => store.isTeamMember(team.id, userId),
      members: (team, page) => store.listMembers(team.id, page),
      addMember: (team, user) =>
        Effect.flatMap(OrganizationSettings, (settings) => store.addMember(team, user.id, settings.defaultMemberVisible)),
      removeMember: (team, user) => store.removeMember(team, user.id),
      repositoryIds: (team, page) => store.listRepositoryIds(team.id, page),
      hasRepository: (team, repoId) => team.includesAllRepositories ? Effect.succeed(true) : store.hasRepository(team.id, repoId),
      addRepository: (team, repoId) => store.addRepository(team, repoId),
      removeRepository: (team, repoId) => team.includesAllRepositories ? Effect.void : store.removeRepository(team.id, repoId)
    })
  })
)
