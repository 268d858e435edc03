/** The port through which organizations (accounts of kind "organization") are stored. */
import { Context, type Effect, type Option } from "effect"
import type { AlreadyExists } from "../errors.ts"
import type { Page, PageRequest } from "../Paging.ts"
import type { NewAccount, User } from "../user/User.ts"
import type { Visibility } from "../user/Visibility.ts"
import type { NewTeam, Team } from "./Team.ts"

export interface OrganizationListQuery {
  readonly visibilities: ReadonlyArray<Visibility>
  /** Only organizations this user is a member of. */
  readonly memberId?: number | undefined
  readonly page: PageRequest
}

export interface MembershipListQuery {
  readonly userId: number
  /** With false: only public memberships of public organizations. */
  readonly includePrivate: boolean
  readonly page: PageRequest
}

export class OrganizationStore extends Context.Service<OrganizationStore, {
  /**
   * In one transaction: the organization's account, its Owners team (`ownerTeam` with the
   * organization's id filled in) with `owner` as only member, and `owner`'s membership
   * (public when `ownerMembershipPublic`). Fails with AlreadyExists `user already exists [name: <name>]`
   * when the name is taken (case-insensitive, users and organizations alike).
   */
  readonly create: (
    organization: NewAccount,
    owner: User,
    ownerTeam: (orgId: number) => NewTeam,
    ownerMembershipPublic: boolean
  ) => Effect.Effect<{ readonly organization: User; readonly ownerTeam: Team }, AlreadyExists>
  /** An organization by name, case-insensitive; individual accounts are not found. */
  readonly findByName: (name: string) => Effect.Effect<Option.Option<User>>
  readonly findById: (id: number) => Effect.Effect<Option.Option<User>>
  /** Organizations by lower-cased name. */
  readonly list: (query: OrganizationListQuery) => Effect.Effect<Page<User>>
  /** The organizations a user is a member of, by lower-cased name. */
  readonly listForMember: (query: MembershipListQuery) => Effect.Effect<Page<User>>
  /** How many organizations the user is a member of. */
  readonly countMemberships: (userId: number) => Effect.Effect<number>
  /** Removes the organization with its teams, memberships and webhooks. */
  readonly remove: (orgId: number) => Effect.Effect<void>
}>()("@kiln/domain/org/OrganizationStore") {}
