/**
 * The port for teams, team membership, organization membership (with its public flag) and the
 * repositories listed for a team. Organization membership follows team membership: joining a team
 * makes a member, leaving the last team of an organization ends the membership.
 */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists, Conflict } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { User } from "../user/User.ts"
import type { NewTeam, Team } from "./Team.ts"

export class TeamStore extends Context.Service<TeamStore, {
  /** Fails with AlreadyExists `team already exists [org_id: N, name: <lower>]` on a duplicate name (case-insensitive). */
  readonly insert: (team: NewTeam) => Effect.Effect<Team, AlreadyExists>
  /**
   * Writes name, description, level, flags and, when `replaceUnits`, the unit rows.
   * Fails with AlreadyExists (same text) when the new name is taken by another team of the organization.
   */
  readonly update: (team: Team, replaceUnits: boolean) => Effect.Effect<Team, AlreadyExists>
  /** Removes the team; members left without a team in the organization stop being members. */
  readonly remove: (team: Team) => Effect.Effect<void>
  readonly findById: (id: number) => Effect.Effect<Option.Option<Team>>
  /** The organization's Owners team. */
  readonly findOwnerTeam: (orgId: number) => Effect.Effect<Option.Option<Team>>
  /** The organization's teams by lower-cased name. */
  readonly listForOrg: (orgId: number, page: PageRequest) => Effect.Effect<Page<Team>>
  /** The user's teams in the organization, by lower-cased name. */
  readonly listForMember: (orgId: number, userId: number) => Effect.Effect<ReadonlyArray<Team>>
  /** The user's teams in the organization that cover the repository: all repositories, or listed. */
  readonly listCoveringRepository: (orgId: number, userId: number, repoId: number) => Effect.Effect<ReadonlyArray<Team>>

  readonly isTeamMember: (teamId: number, userId: number) => Effect.Effect<boolean>
  /**
   * Adds the user to the team and, if new to the organization, to its members (public when
   * `membershipPublic`). Idempotent, also under concurrency: one membership row at most.
   */
  readonly addMember: (team: Team, userId: number, membershipPublic: boolean) => Effect.Effect<void>
  /**
   * Removes the user from the team (no-op for a non-member); without another team in the
   * organization the user stops being a member. Fails with Conflict
   * `user is the last member of owner team [uid: N]` when this would empty the Owners team;
   * the check and the removal are atomic.
   */
  readonly removeMember: (team: Team, userId: number) => Effect.Effect<void, Conflict>
  /** Members by full name, then name. */
  readonly listMembers: (teamId: number, page: PageRequest) => Effect.Effect<Page<User>>

  readonly isOrgMember: (orgId: number, userId: number) => Effect.Effect<boolean>
  readonly isOrgOwner: (orgId: number, userId: number) => Effect.Effect<boolean>
  readonly isPublicMember: (orgId: number, userId: number) => Effect.Effect<boolean>
  /** Sets the publicity of a membership; no-op for a non-member. */
  readonly setMembershipPublic: (orgId: number, userId: number, isPublic: boolean) => Effect.Effect<void>
  /**
   * Ends the user's membership and removes them from every team of the organization (no-op for a
   * non-member). Fails with Conflict `user is the last member of owner team [uid: N]` for the last owner.
   */
  readonly removeOrgMember: (orgId: number, userId: number) => Effect.Effect<void, Conflict>
  /** Members by name; only public memberships when `publicOnly`. */
  readonly listOrgMembers: (orgId: number, publicOnly: boolean, page: PageRequest) => Effect.Effect<Page<User>>

  /** Lists a repository for the team (idempotent). */
  readonly addRepository: (team: Team, repoId: number) => Effect.Effect<void>
  readonly removeRepository: (teamId: number, repoId: number) => Effect.Effect<void>
  /** Repositories listed for the team (not those covered through "all repositories"). */
  readonly listRepositoryIds: (teamId: number, page: PageRequest) => Effect.Effect<Page<number>>
  readonly hasRepository: (teamId: number, repoId: number) => Effect.Effect<boolean>
}>()("@kiln/domain/org/TeamStore") {}
