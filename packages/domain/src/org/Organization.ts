/**
 * An organization is an account (`User` with kind "organization") sharing the users' name space.
 * Its JSON and the texts Forgejo uses about organizations. [services/convert/convert.go
 * ToOrganization, models/organization/org.go]
 */
import type { User } from "../user/User.ts"

/** Forgejo's Organization JSON, keys in its order; `username` repeats `name` (deprecated). */
export interface OrganizationView {
  readonly id: number
  readonly name: string
  readonly full_name: string
  readonly email: string
  readonly avatar_url: string
  readonly description: string
  readonly website: string
  readonly location: string
  readonly visibility: string
  readonly repo_admin_change_team_access: boolean
  readonly username: string
}

/** `hideEmail`: `GET /orgs/{org}` blanks the e-mail for anonymous callers (no other route does). */
export const organizationView = (org: User, avatarUrl: string, hideEmail = false): OrganizationView => ({
  id: org.id,
  name: org.name,
  full_name: org.fullName,
  email: hideEmail ? "" : org.email,
  avatar_url: avatarUrl,
  description: org.description,
  website: org.website,
  location: org.location,
  visibility: org.visibility,
  repo_admin_change_team_access: org.repoAdminChangeTeamAccess,
  username: org.name
})

/** Forgejo's `ErrOrgNotExist` text for a lookup by name. */
export const orgNotFoundMessage = (name: string): string => `org does not exist [id: 0, name: ${name}]`

/** The 404 label Forgejo uses when the organization exists but the caller may not see it. */
export const ORG_HIDDEN_MESSAGE = "HasOrgOrUserVisible"

/** Forgejo's `ErrUserOwnRepos` text: an organization that still owns repositories cannot be deleted. */
export const ownsRepositoriesMessage = (orgId: number): string =>
  `user still has ownership of repositories [uid: ${orgId}]`

/** Forgejo's `ErrUserHasOrgs` text: a user who is still a member of organizations cannot be deleted. */
export const hasOrganizationsMessage = (userId: number): string =>
  `user still has membership of organizations [uid: ${userId}]`
