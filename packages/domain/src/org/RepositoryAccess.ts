/**
 * THE rule for a caller's access to a repository: Forgejo's `GetUserRepoPermission` with its
 * `accessLevel` and access table folded in [models/perm/access/repo_permission.go, access.go].
 * Every repository endpoint decides read, write and admin from this one function; an answer
 * without access (`hasAccess` false) means the repository is hidden (404).
 *
 * In order:
 * 1. anonymous caller, private repository: no access;
 * 2. an owner the caller may not see (see {@link canSeeAccount}) hides the repository unless the
 *    caller is a collaborator;
 * 3. anonymous caller (public repository, visible owner): read on every unit;
 * 4. site admin, or the owner themself: owner on every unit;
 * 5. otherwise the level is the highest of the collaboration, the caller's teams covering the
 *    repository (the Owners team counting as owner) and, for a public repository and a caller who
 *    is not restricted, read;
 *    - a team at admin or above makes the caller owner on every unit;
 *    - a collaborator gets that level on every unit; team members get each unit at the highest
 *      level their teams give it; on a public repository a caller who is not restricted reads
 *      every unit nothing else covers.
 * Restricted callers thus only ever get what a collaboration or a team gives them.
 * Per-unit default permissions (globally writable wikis) are not modelled: every unit is "unset".
 */
import { Option } from "effect"
import type { User } from "../user/User.ts"
import { type AccessMode, atLeast, higherAccess, highestAccess } from "./AccessMode.ts"
import { canSeeAccount } from "./OrgVisibility.ts"
import { isOwnerTeam, type Team, teamUnitMode } from "./Team.ts"
import { defaultRepoUnits, type UnitKey } from "./Unit.ts"

export interface RepositoryAccessInput {
  /** The caller; none for anonymous. */
  readonly caller: Option.Option<User>
  /** The repository's owner: an individual or an organization. */
  readonly owner: User
  readonly repository: {
    readonly id: number
    readonly isPrivate: boolean
    /** The repository's enabled units; Forgejo's defaults for a new repository when absent. */
    readonly units?: ReadonlyArray<UnitKey> | undefined
  }
  /** The caller's collaboration level on the repository, if a collaborator. */
  readonly collaboration: Option.Option<AccessMode>
  /** The caller's teams in the owning organization that cover this repository (all repositories, or listed). */
  readonly teams: ReadonlyArray<Team>
  /** The caller is a member of the owning organization. */
  readonly isOrgMember: boolean
}

export interface RepositoryAccess {
  /** The repository-wide level (`permissions.admin` is `mode >= admin`). */
  readonly mode: AccessMode
  /** The level on each unit; `none` for units the repository does not enable. */
  readonly units: Readonly<Record<UnitKey, AccessMode>>
  /** Any access at all; without it the repository is hidden (404). */
  readonly hasAccess: boolean
}

const noUnits = (): Record<UnitKey, AccessMode> => ({
  "repo.code": "none",
  "repo.issues": "none",
  "repo.pulls": "none",
  "repo.releases": "none",
  "repo.wiki": "none",
  "repo.ext_wiki": "none",
  "repo.ext_issues": "none",
  "repo.projects": "none",
  "repo.packages": "none",
  "repo.actions": "none"
})

const noAccess: RepositoryAccess = { mode: "none", units: noUnits(), hasAccess: false }

/** The same level on every enabled unit (Forgejo's permission without a units map). */
export const uniform = (mode: AccessMode, enabled: ReadonlyArray<UnitKey>): RepositoryAccess => {
  const units = noUnits()
  for (const unit of enabled) units[unit] = mode
  return { mode, units, hasAccess: atLeast(mode, "read") }
}

/** Per-unit levels (Forgejo's units map): access exactly when some unit has an entry. */
const perUnit = (mode: AccessMode, entries: ReadonlyMap<UnitKey, AccessMode>): RepositoryAccess => {
  const units = noUnits()
  for (const [unit, unitMode] of entries) units[unit] = unitMode
  return { mode, units, hasAccess: entries.size > 0 }
}

export const repositoryAccess = (input: RepositoryAccessInput): RepositoryAccess => {
  const { caller, owner, repository } = input
  const enabled = repository.units ?? defaultRepoUnits
  if (Option.isNone(caller)) {
    if (repository.isPrivate || !canSeeAccount(caller, owner, input.isOrgMember)) return noAccess
    return uniform("read", enabled)
  }
  const user = caller.value
  const isCollaborator = Option.isSome(input.collaboration)
  if (!canSeeAccount(caller, owner, input.isOrgMember) && !isCollaborator) return noAccess
  if (user.isAdmin || user.id === owner.id) return uniform("owner", enabled)

  const ownedByOrg = owner.kind === "organization"
  const teams = ownedByOrg ? input.teams : []
  const readsPublic = !repository.isPrivate && !user.restricted
  const mode = highestAccess([
    readsPublic ? "read" : "none",
    Option.getOrElse(input.collaboration, (): AccessMode => "none"),
    ...teams.map((team): AccessMode => isOwnerTeam(team) ? "owner" : team.permission)
  ])
  if (teams.some((team) => atLeast(team.permission, "admin"))) return uniform("owner", enabled)

  const entries = new Map<UnitKey, AccessMode>()
  if (isCollaborator) for (const unit of enabled) entries.set(unit, mode)
  for (const unit of enabled) {
    const granted = teams.map((team) => teamUnitMode(team, unit)).filter((unitMode) => unitMode !== "none")
    if (granted.length > 0) entries.set(unit, higherAccess(entries.get(unit) ?? "none", highestAccess(granted)))
    else if (readsPublic && !entries.has(unit)) entries.set(unit, ownedByOrg ? "read" : mode)
  }
  return perUnit(mode, entries)
}
