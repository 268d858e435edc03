/**
 * How a team's level and unit rows follow from a create or edit body, and how they show in
 * Forgejo's Team JSON. [routers/api/v1/org/team.go CreateTeam/EditTeam, models/unit/unit.go
 * MinUnitAccessMode, models/organization/team.go GetUnitNames/GetUnitsMap]
 *
 * - `permission` is parsed with `ParseAccessMode` (`read|write|admin`, anything else is `none`).
 * - Below admin with a non-empty `units_map`, the team level becomes the lowest non-none level in
 *   the map, the external units not counting; the map gives the unit rows (`none` rows kept).
 * - Below admin without a map, every unit listed in `units` gets the team level.
 * - At admin or above, every unit is admin but the external tracker and wiki, which are read.
 * - Unknown unit keys are dropped (Forgejo would store a row of the invalid unit type 0).
 */
import { Effect } from "effect"
import { Invalid } from "../errors.ts"
import { type AccessMode, accessRank, atLeast, parseAccessMode } from "./AccessMode.ts"
import type { OrganizationView } from "./Organization.ts"
import { isOwnerTeam, type Team } from "./Team.ts"
import { isExternalUnit, type UnitKey, unitKeyOf, unitKeys, unitModesOf, type UnitModes, unitsIn } from "./Unit.ts"

/** The permission part of CreateTeamOption / EditTeamOption. */
export interface TeamPermissionBody {
  readonly permission?: string | undefined
  readonly units?: ReadonlyArray<string> | undefined
  readonly unitsMap?: Readonly<Record<string, string>> | undefined
}

/** Forgejo's 500 text when a team below admin names no unit at all. */
export const UNITS_REQUIRED_MESSAGE = "units permission should not be empty"

/** Unit rows of a team at admin or above. */
export const adminTeamUnits: UnitModes = unitModesOf((unit) => isExternalUnit(unit) ? "read" : "admin")

/** `units_map` as unit rows: keys matched case-insensitively, levels parsed, unknown keys dropped. */
export const unitsFromMap = (unitsMap: Readonly<Record<string, string>>): UnitModes => {
  const parsed = new Map<UnitKey, AccessMode>()
  for (const [key, level] of Object.entries(unitsMap)) {
    const unit = unitKeyOf(key)
    if (unit !== undefined) parsed.set(unit, parseAccessMode(level))
  }
  return unitModesOf((unit) => parsed.get(unit))
}

/** `units` as unit rows, all at `mode`; unknown keys dropped, duplicates merged. */
export const unitsWithMode = (units: ReadonlyArray<string>, mode: AccessMode): UnitModes => {
  const listed = new Set(units.flatMap((key) => unitKeyOf(key) ?? []))
  return unitModesOf((unit) => listed.has(unit) ? mode : undefined)
}

/** Forgejo's `MinUnitAccessMode`: the lowest level above none, external units ignored; none if none. */
export const minUnitAccessMode = (units: UnitModes): AccessMode => {
  let lowest: AccessMode = "none"
  for (const unit of unitsIn(units)) {
    const mode = units[unit] ?? "none"
    if (isExternalUnit(unit) || mode === "none") continue
    if (lowest === "none" || accessRank(mode) < accessRank(lowest)) lowest = mode
  }
  return lowest
}

const hasMap = (body: TeamPermissionBody): body is TeamPermissionBody & { unitsMap: Readonly<Record<string, string>> } =>
  body.unitsMap !== undefined && Object.keys(body.unitsMap).length > 0

/** The level a body asks for: its `permission`, lowered to the map's minimum below admin. */
const requestedLevel = (body: TeamPermissionBody): AccessMode => {
  const level = parseAccessMode(body.permission ?? "")
  return !atLeast(level, "admin") && hasMap(body) ? minUnitAccessMode(unitsFromMap(body.unitsMap)) : level
}

/**
 * Level and unit rows of a new team.
 * Fails with Invalid {@link UNITS_REQUIRED_MESSAGE} (Forgejo: 500) when below admin and neither
 * `units` nor `units_map` is given.
 */
export const permissionForNewTeam = (
  body: TeamPermissionBody
): Effect.Effect<{ readonly permission: AccessMode; readonly units: UnitModes }, Invalid> => {
  const permission = requestedLevel(body)
  if (atLeast(permission, "admin")) return Effect.succeed({ permission, units: adminTeamUnits })
  if (hasMap(body)) return Effect.succeed({ permission, units: unitsFromMap(body.unitsMap) })
  if (body.units !== undefined && body.units.length > 0) {
    return Effect.succeed({ permission, units: unitsWithMode(body.units, permission) })
  }
  return Effect.fail(new Invalid({ message: UNITS_REQUIRED_MESSAGE }))
}

/** EditTeamOption; absent fields leave the team as it is. */
export interface TeamEditBody extends TeamPermissionBody {
  /** Applied only when non-empty. */
  readonly name?: string | undefined
  readonly description?: string | undefined
  /** Applied only together with a non-empty `permission` (Forgejo's quirk). */
  readonly includesAllRepositories?: boolean | undefined
  /** Forced true for the Owners team. */
  readonly canCreateOrgRepo?: boolean | undefined
}

export interface TeamEdit {
  readonly team: Team
  /** The unit rows are replaced (Forgejo keeps them when the body yields none). */
  readonly unitsReplaced: boolean
  readonly permissionChanged: boolean
  readonly includesAllChanged: boolean
}

/**
 * Forgejo's EditTeam field by field: the Owners team keeps its level; a non-empty `permission`
 * sets the level (lowered to the map's minimum below admin) and unlocks `includes_all_repositories`;
 * below admin, `units_map` or else `units` replace the unit rows (with the possibly new level);
 * at admin or above, the rows become the admin rows (for the Owners team too).
 */
export const applyTeamEdit = (team: Team, body: TeamEditBody): TeamEdit => {
  let permission = team.permission
  let includesAllRepositories = team.includesAllRepositories
  let permissionChanged = false
  let includesAllChanged = false
  if (!isOwnerTeam(team) && body.permission !== undefined && body.permission !== "") {
    const requested = requestedLevel(body)
    permissionChanged = requested !== team.permission
    permission = requested
    if (body.includesAllRepositories !== undefined) {
      includesAllChanged = true
      includesAllRepositories = body.includesAllRepositories
    }
  }
  let units: UnitModes = {}
  if (atLeast(permission, "admin")) units = adminTeamUnits
  else if (hasMap(body)) units = unitsFromMap(body.unitsMap)
  else if (body.units !== undefined) units = unitsWithMode(body.units, permission)
  const unitsReplaced = unitsIn(units).length > 0
  return {
    team: {
      ...team,
      name: body.name !== undefined && body.name !== "" ? body.name : team.name,
      lowerName: body.name !== undefined && body.name !== "" ? body.name.toLowerCase() : team.lowerName,
      description: body.description ?? team.description,
      canCreateOrgRepo: body.canCreateOrgRepo === undefined ? team.canCreateOrgRepo : isOwnerTeam(team) || body.canCreateOrgRepo,
      permission,
      includesAllRepositories,
      units: unitsReplaced ? units : team.units
    },
    unitsReplaced,
    permissionChanged,
    includesAllChanged
  }
}

/** The Team JSON's `units`: every unit key for admin and owner teams, else the keys of the unit rows. */
export const teamUnitNames = (team: Team): ReadonlyArray<UnitKey> =>
  atLeast(team.permission, "admin") ? unitKeys : unitsIn(team.units)

/** The Team JSON's `units_map`: every unit at the team level for admin and owner teams, else the rows. */
export const teamUnitsMap = (team: Team): Readonly<Record<string, AccessMode>> => {
  const map: Record<string, AccessMode> = {}
  for (const unit of teamUnitNames(team)) {
    map[unit] = atLeast(team.permission, "admin") ? team.permission : team.units[unit] ?? "none"
  }
  return map
}

/** Go writes map keys sorted. */
const sortedKeys = <A>(record: Readonly<Record<string, A>>): Readonly<Record<string, A>> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))

/**
 * Forgejo's Team JSON, keys in its order. `organization` is the full Organization on
 * `GET /teams/{id}` and `POST /orgs/{org}/teams`, `null` on `GET /orgs/{org}/teams` and `PATCH /teams/{id}`.
 */
export const teamView = <Org extends OrganizationView>(team: Team, organization: Org | null) => ({
  id: team.id,
  name: team.name,
  description: team.description,
  organization,
  includes_all_repositories: team.includesAllRepositories,
  permission: team.permission,
  units: teamUnitNames(team),
  units_map: sortedKeys(teamUnitsMap(team)),
  can_create_org_repo: team.canCreateOrgRepo
})
