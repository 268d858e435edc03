/**
 * Who may see an organization (or a user account, by the same rule). Forgejo's
 * `HasOrgOrUserVisible` [models/organization/org.go] and the organization list filters
 * [routers/api/v1/org/org.go GetAll, models/user/search.go BuildCanSeeUserCondition].
 */
import { Option } from "effect"
import type { User } from "../user/User.ts"
import type { Visibility } from "../user/Visibility.ts"

/**
 * Public accounts: everyone. Anonymous callers see nothing else. Site admins and the account
 * itself: always. Private accounts, and every account for a restricted viewer: members only.
 * Otherwise (limited, or public) a signed-in viewer sees it. `viewerIsMember` is the viewer's
 * organization membership (always false for an individual account).
 */
export const canSeeAccount = (viewer: Option.Option<User>, account: User, viewerIsMember: boolean): boolean => {
  if (Option.isNone(viewer)) return account.visibility === "public"
  if (viewer.value.isAdmin || viewer.value.id === account.id) return true
  return (account.visibility !== "private" && !viewer.value.restricted) || viewerIsMember
}

/** Which organizations `GET /orgs` lists. */
export interface OrganizationListFilter {
  readonly visibilities: ReadonlyArray<Visibility>
  /** Restricted viewers see only organizations they are a member of. */
  readonly memberId?: number | undefined
}

/**
 * Anonymous: public. Signed in: public and limited (site admins also private); with a
 * public-only token: public. Restricted viewers: only among their own organizations.
 */
export const organizationListFilter = (viewer: Option.Option<User>, publicOnly: boolean): OrganizationListFilter => {
  if (Option.isNone(viewer)) return { visibilities: ["public"] }
  const user = viewer.value
  if (publicOnly) return user.isAdmin || !user.restricted ? { visibilities: ["public"] } : { visibilities: ["public"], memberId: user.id }
  if (user.isAdmin) return { visibilities: ["public", "limited", "private"] }
  return user.restricted ? { visibilities: ["public", "limited"], memberId: user.id } : { visibilities: ["public", "limited"] }
}
