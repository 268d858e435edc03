/**
 * A team of an organization: a named group of members with one access level (`permission`)
 * and per-unit levels, over either all of the organization's repositories or a chosen list.
 * Every organization has the `Owners` team; its members are the organization's owners.
 * [models/organization/team.go]
 */
import type { AccessMode } from "./AccessMode.ts"
import { isExternalUnit, type UnitKey, unitModesOf, type UnitModes } from "./Unit.ts"

/** The automatic team; Forgejo recognises it by this exact name. */
export const OWNER_TEAM_NAME = "Owners"

export interface Team {
  readonly id: number
  readonly orgId: number
  readonly name: string
  /** The key for case-insensitive uniqueness within the organization. */
  readonly lowerName: string
  readonly description: string
  /** The team's level (Forgejo's `authorize`). */
  readonly permission: AccessMode
  readonly includesAllRepositories: boolean
  readonly canCreateOrgRepo: boolean
  /** The team's unit rows. */
  readonly units: UnitModes
}

/** What a new team is made of; the store assigns the id and the lower-cased name. */
export type NewTeam = Omit<Team, "id" | "lowerName">

export const isOwnerTeam = (team: Pick<Team, "name">): boolean => team.name === OWNER_TEAM_NAME

/** The level of one unit row, `none` without a row (Forgejo's `Team.UnitAccessMode`). */
export const teamUnitMode = (team: Team, unit: UnitKey): AccessMode => team.units[unit] ?? "none"

/** Units of a fresh Owners team: everything at owner, the external tracker and wiki at read. */
export const ownerTeamUnits: UnitModes = unitModesOf((unit) => isExternalUnit(unit) ? "read" : "owner")

/** The Owners team an organization is created with. */
export const newOwnerTeam = (orgId: number): NewTeam => ({
  orgId,
  name: OWNER_TEAM_NAME,
  description: "",
  permission: "owner",
  includesAllRepositories: true,
  canCreateOrgRepo: true,
  units: ownerTeamUnits
})

/** Forgejo's `ErrLastOrgOwner` text. */
export const lastOwnerMessage = (userId: number): string => `user is the last member of owner team [uid: ${userId}]`

/** Forgejo's `ErrTeamAlreadyExist` text; `lowerName` as Forgejo reports it. */
export const teamExistsMessage = (orgId: number, lowerName: string): string =>
  `team already exists [org_id: ${orgId}, name: ${lowerName}]`

/** Forgejo's `ErrTeamNotExist` text for a lookup by id. */
export const teamNotFoundMessage = (teamId: number): string => `team does not exist [org_id 0, team_id ${teamId}, name: ]`
