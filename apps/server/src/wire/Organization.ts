/**
 * Forgejo's Organization JSON (services/convert/convert.go ToOrganization) and the options that
 * create and edit one.
 */
import { Schema } from "effect"
import { organizationView } from "@kiln/domain/org/Organization"
import type { CreateOrganizationInput, EditOrganizationInput } from "@kiln/domain/org/Organizations"
import type { User } from "@kiln/domain/user/User"
import { optionPayload } from "./OptionSchema.ts"
import { rfc3339 } from "./Time.ts"
import { avatarUrl, type SiteUrls } from "./User.ts"

export const OrganizationJson = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  full_name: Schema.String,
  email: Schema.String,
  avatar_url: Schema.String,
  description: Schema.String,
  website: Schema.String,
  location: Schema.String,
  visibility: Schema.String,
  repo_admin_change_team_access: Schema.Boolean,
  username: Schema.String.annotate({ description: "deprecated" }),
  /** Forgejo v15: when the organization was created. */
  created: Schema.String
}).annotate({ identifier: "Organization" })
export type OrganizationJson = typeof OrganizationJson.Type

/** `hideEmail`: only `GET /orgs/{org}` blanks the e-mail, for anonymous callers. */
export const toOrganizationJson = (organization: User, urls: SiteUrls, hideEmail = false): OrganizationJson => ({
  ...organizationView(organization, avatarUrl(urls), hideEmail),
  created: rfc3339(organization.createdAt)
})

/**
 * `username` is required, but Forgejo names it `[UserName]: Required` (its Go field), which the
 * domain's binding reports; so the schema leaves the check to it.
 */
export const CreateOrgOption = optionPayload("CreateOrgOption", {
  username: { kind: "string", description: "required" },
  full_name: { kind: "string" },
  email: { kind: "string" },
  description: { kind: "string" },
  website: { kind: "string" },
  location: { kind: "string" },
  visibility: { kind: "string", description: "possible values are `public` (default), `limited` or `private`" },
  repo_admin_change_team_access: { kind: "boolean" }
})
export type CreateOrgOption = typeof CreateOrgOption[0]["Type"]

export const EditOrgOption = optionPayload("EditOrgOption", {
  full_name: { kind: "string", description: "written on every edit: omitted means empty" },
  email: { kind: "string", description: "omitted: unchanged; empty: removed" },
  description: { kind: "string", description: "written on every edit: omitted means empty" },
  website: { kind: "string", description: "written on every edit: omitted means empty" },
  location: { kind: "string", description: "written on every edit: omitted means empty" },
  visibility: { kind: "string", description: "possible values are `public`, `limited` or `private`; empty: unchanged" },
  repo_admin_change_team_access: { kind: "boolean" }
})
export type EditOrgOption = typeof EditOrgOption[0]["Type"]

export const toCreateOrganizationInput = (option: CreateOrgOption): CreateOrganizationInput => ({
  username: option.username ?? "",
  fullName: option.full_name,
  email: option.email,
  description: option.description,
  website: option.website,
  location: option.location,
  visibility: option.visibility,
  repoAdminChangeTeamAccess: option.repo_admin_change_team_access
})

export const toEditOrganizationInput = (option: EditOrgOption): EditOrganizationInput => ({
  fullName: option.full_name,
  email: option.email,
  description: option.description,
  website: option.website,
  location: option.location,
  visibility: option.visibility,
  repoAdminChangeTeamAccess: option.repo_admin_change_team_access
})
