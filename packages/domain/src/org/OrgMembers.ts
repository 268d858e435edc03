/**
 * Organization membership as the API shows it (api-facts §5.2), and Forgejo's organization and
 * team gates (api-facts §0.4). Membership itself comes from teams (see TeamStore).
 * [routers/api/v1/org/member.go, routers/api/v1/api.go reqOrgOwnership/reqOrgMembership/reqTeamMembership]
 */
import { Context, Effect, Layer } from "effect"
import { type Conflict, Forbidden, NotFound } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { User } from "../user/User.ts"
import { type Team, teamNotFoundMessage } from "./Team.ts"
import { TeamStore } from "./TeamStore.ts"

export const MUST_BE_OWNER_MESSAGE = "Must be an organization owner"
export const MUST_BE_MEMBER_MESSAGE = "Must be an organization member"
export const MUST_BE_TEAM_MEMBER_MESSAGE = "Must be a team member"
export const CANNOT_PUBLICIZE_MESSAGE = "Cannot publicize another member"
export const CANNOT_CONCEAL_MESSAGE = "Cannot conceal another member"

/**
 * The answer to `GET /orgs/{org}/members/{username}`: 204 for "member", 404 for "notMember",
 * 303 to `/api/v1/orgs/{org}/public_members/{username}` for "askPublicMembers".
 */
export type MembershipAnswer = "member" | "notMember" | "askPublicMembers"

export class OrgMembers extends Context.Service<OrgMembers, {
  readonly isMember: (orgId: number, userId: number) => Effect.Effect<boolean>
  /** A member of the Owners team. */
  readonly isOwner: (orgId: number, userId: number) => Effect.Effect<boolean>
  readonly isPublicMember: (orgId: number, userId: number) => Effect.Effect<boolean>
  /** reqOrgOwnership on `/orgs/{org}/...`: site admins and owners pass; Forbidden `Must be an organization owner` (403). */
  readonly requireOwner: (caller: User, organization: User) => Effect.Effect<void, Forbidden>
  /** reqOrgMembership on `/orgs/{org}/...`: site admins and members pass; Forbidden `Must be an organization member` (403). */
  readonly requireMember: (caller: User, organization: User) => Effect.Effect<void, Forbidden>
  /** reqOrgOwnership on `/teams/{id}/...`: site admins and owners pass; otherwise NotFound (404). */
  readonly requireTeamOwner: (caller: User, team: Team) => Effect.Effect<void, NotFound>
  /**
   * reqTeamMembership on every `/teams/{id}` route: site admins, owners and the team's members pass;
   * other organization members get Forbidden `Must be a team member` (403), everyone else NotFound (404).
   */
  readonly requireTeamAccess: (caller: User, team: Team) => Effect.Effect<void, Forbidden | NotFound>
  /** `GET /orgs/{org}/members`: every member for members and site admins, else public members only; by name. */
  readonly list: (organization: User, caller: User, page: PageRequest) => Effect.Effect<Page<User>>
  /** `GET /orgs/{org}/public_members`: by name. */
  readonly listPublic: (organization: User, page: PageRequest) => Effect.Effect<Page<User>>
  /**
   * `GET /orgs/{org}/members/{username}`: members and site admins learn the truth; a non-member
   * asking about themself is told "notMember"; a non-member asking about someone else is sent to
   * the public members ("askPublicMembers").
   */
  readonly membership: (organization: User, caller: User, target: User) => Effect.Effect<MembershipAnswer>
  /**
   * `DELETE /orgs/{org}/members/{username}` (owners): removes the user from the organization and all
   * its teams; no-op for a non-member. Conflict `user is the last member of owner team [uid: N]` (Forgejo: 500).
   */
  readonly remove: (organization: User, target: User) => Effect.Effect<void, Conflict>
  /**
   * `PUT /orgs/{org}/public_members/{username}`: Forbidden `Must be an organization member` unless the
   * caller is a member or site admin, then Forbidden `Cannot publicize another member` unless the
   * target is the caller: Forgejo refuses site admins there too.
   */
  readonly publicize: (organization: User, caller: User, target: User) => Effect.Effect<void, Forbidden>
  /** `DELETE /orgs/{org}/public_members/{username}`: as `publicize`, with `Cannot conceal another member`. */
  readonly conceal: (organization: User, caller: User, target: User) => Effect.Effect<void, Forbidden>
}>()("@kiln/domain/org/OrgMembers") {}

export const layer: Layer.Layer<OrgMembers, never, TeamStore> = Layer.effect(
  OrgMembers,
  Effect.gen(function*() {
    const store = yield* TeamStore

    const requireMember = (caller: User, organization: User) =>
      caller.isAdmin
        ? Effect.void
        : Effect.flatMap(store.isOrgMember(organization.id, caller.id), (isMember) =>
          isMember ? Effect.void : Effect.fail(new Forbidden({ message: MUST_BE_MEMBER_MESSAGE })))

    const setPublic = (isPublic: boolean, refusal: string) => (organization: User, caller: User, target: User) =>
      Effect.gen(function*() {
        yield* requireMember(caller, organization)
        if (target.id !== caller.id) return yield* new Forbidden({ message: refusal })
        yield* store.setMembershipPublic(organization.id, target.id, isPublic)
      })

    return OrgMembers.of({
      isMember: store.isOrgMember,
      isOwner: store.isOrgOwner,
      isPublicMember: store.isPublicMember,
      requireOwner: (caller, organization) =>
        caller.isAdmin
          ? Effect.void
          : Effect.flatMap(store.isOrgOwner(organization.id, caller.id), (isOwner) =>
            isOwner ? Effect.void : Effect.fail(new Forbidden({ message: MUST_BE_OWNER_MESSAGE }))),
      requireMember,
      requireTeamOwner: (caller, team) =>
        caller.isAdmin
          ? Effect.void
          : Effect.flatMap(store.isOrgOwner(team.orgId, caller.id), (isOwner) =>
            isOwner ? Effect.void : Effect.fail(new NotFound({ message: teamNotFoundMessage(team.id) }))),
      requireTeamAccess: (caller, team) =>
        Effect.gen(function*() {
          if (caller.isAdmin || (yield* store.isOrgOwner(team.orgId, caller.id))) return
          if (yield* store.isTeamMember(team.id, caller.id)) return
          if (yield* store.isOrgMember(team.orgId, caller.id)) {
            return yield* new Forbidden({ message: MUST_BE_TEAM_MEMBER_MESSAGE })
          }
          return yield* new NotFound({ message: teamNotFoundMessage(team.id) })
        }),
      list: (organization, caller, page) =>
        Effect.flatMap(store.isOrgMember(organization.id, caller.id), (isMember) =>
          store.listOrgMembers(organization.id, !isMember && !caller.isAdmin, page)),
      listPublic: (organization, page) => store.listOrgMembers(organization.id, true, page),
      membership: (organization, caller, target) =>
        Effect.gen(function*() {
          if (caller.isAdmin || (yield* store.isOrgMember(organization.id, caller.id))) {
            return (yield* store.isOrgMember(organization.id, target.id)) ? "member" : "notMember"
          }
          return caller.id === target.id ? "notMember" : "askPublicMembers"
        }),
      remove: (organization, target) => store.removeOrgMember(organization.id, target.id),
      publicize: setPublic(true, CANNOT_PUBLICIZE_MESSAGE),
      conceal: setPublic(false, CANNOT_CONCEAL_MESSAGE)
    })
  })
)
