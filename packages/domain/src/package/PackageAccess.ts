/**
 * A caller's access to an owner's packages: Forgejo's `determineAccessMode`
 * [services/context/package.go]. Site admins pass every check regardless (the callers' rule).
 *
 * - Organization: the highest level among the caller's teams (the Owners team counting as owner);
 *   below write, the teams' level on the packages unit counts too; a caller without any level who
 *   may see the organization reads.
 * - User: the owner themself is owner; a signed-in caller reads a public or limited account's
 *   packages, an anonymous one a public account's.
 */
import { Option } from "effect"
import { type AccessMode, atLeast, higherAccess, highestAccess } from "../org/AccessMode.ts"
import { canSeeAccount } from "../org/OrgVisibility.ts"
import { isOwnerTeam, type Team, teamUnitMode } from "../org/Team.ts"
import { isDisabled, type User } from "../user/User.ts"

export interface PackageAccessInput {
  readonly caller: Option.Option<User>
  readonly owner: User
  /** The caller's teams in the owning organization (empty for a user owner). */
  readonly teams: ReadonlyArray<Team>
  readonly isOrgMember: boolean
}

export const packageAccess = (input: PackageAccessInput): AccessMode => {
  const { caller, owner } = input
  if (Option.isSome(caller) && isDisabled(caller.value)) return "none"
  if (owner.kind === "organization") {
    let mode: AccessMode = "none"
    if (Option.isSome(caller)) {
      mode = highestAccess(input.teams.map((team): AccessMode => isOwnerTeam(team) ? "owner" : team.permission))
      if (!atLeast(mode, "write")) {
        for (const team of input.teams) mode = higherAccess(mode, teamUnitMode(team, "repo.packages"))
      }
    }
    return mode === "none" && canSeeAccount(caller, owner, input.isOrgMember) ? "read" : mode
  }
  if (Option.isNone(caller)) return owner.visibility === "public" ? "read" : "none"
  if (caller.value.id === owner.id) return "owner"
  return owner.visibility === "public" || owner.visibility === "limited" ? "read" : "none"
}
