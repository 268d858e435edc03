/**
 * Forgejo's Team JSON (services/convert/convert.go ToTeam) and the options that create and edit
 * a team. `units_map` is a JSON object, so urlencoded and multipart bodies cannot carry it, as in
 * Forgejo's form binding.
 */
import { Schema } from "effect"
import { accessModes } from "@kiln/domain/org/AccessMode"
import type { Team } from "@kiln/domain/org/Team"
import type { CreateTeamInput } from "@kiln/domain/org/Teams"
import type { TeamEditBody } from "@kiln/domain/org/TeamPermission"
import { teamView } from "@kiln/domain/org/TeamPermission"
import { optionPayload } from "./OptionSchema.ts"
import { OrganizationJson } from "./Organization.ts"

export const TeamJson = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  description: Schema.String,
  organization: Schema.NullOr(OrganizationJson),
  includes_all_repositories: Schema.Boolean,
  permission: Schema.Literals(accessModes),
  units: Schema.Array(Schema.String),
  units_map: Schema.Record(Schema.String, Schema.String),
  can_create_org_repo: Schema.Boolean
}).annotate({ identifier: "Team" })
export type TeamJson = typeof TeamJson.Type

/** `organization` is the full Organization where Forgejo loads it, else null. */
export const toTeamJson = (team: Team, organization: OrganizationJson | null): TeamJson => teamView(team, organization)

const UnitsMap = Schema.Record(Schema.String, Schema.String).annotate({
  description: "unit key → access level (`none`, `read`, `write`, `admin`)"
})

const teamFields = {
  description: { kind: "string" },
  includes_all_repositories: { kind: "boolean" },
  permission: { kind: "string", description: "`read`, `write` or `admin`; anything else counts as none" },
  units: { kind: "strings" },
  can_create_org_repo: { kind: "boolean" }
} as const

const [, createForm, createMultipart] = optionPayload("CreateTeamOption", { name: { kind: "string", required: true }, ...teamFields })
const [, editForm, editMultipart] = optionPayload("EditTeamOption", { name: { kind: "string" }, ...teamFields })

const jsonFields = {
  description: Schema.optionalKey(Schema.String),
  includes_all_repositories: Schema.optionalKey(Schema.Boolean),
  permission: Schema.optionalKey(Schema.String),
  units: Schema.optionalKey(Schema.Array(Schema.String)),
  units_map: Schema.optionalKey(UnitsMap),
  can_create_org_repo: Schema.optionalKey(Schema.Boolean)
}

const CreateTeamOptionJson = Schema.Struct({ name: Schema.String, ...jsonFields }).annotate({ identifier: "CreateTeamOption" })
const EditTeamOptionJson = Schema.Struct({ name: Schema.optionalKey(Schema.String), ...jsonFields }).annotate({
  identifier: "EditTeamOption"
})

/** JSON (with `units_map`), urlencoded and multipart, as `optionPayload` builds them. */
export const CreateTeamOption = [CreateTeamOptionJson, createForm, createMultipart] as const
export const EditTeamOption = [EditTeamOptionJson, editForm, editMultipart] as const

type CreateTeamBody = typeof CreateTeamOptionJson.Type | typeof createForm.Type
type EditTeamBody = typeof EditTeamOptionJson.Type | typeof editForm.Type

const unitsMapOf = (body: CreateTeamBody | EditTeamBody) => "units_map" in body ? body.units_map : undefined

export const toCreateTeamInput = (body: CreateTeamBody): CreateTeamInput => ({
  name: body.name,
  description: body.description,
  includesAllRepositories: body.includes_all_repositories,
  canCreateOrgRepo: body.can_create_org_repo,
  permission: body.permission,
  units: body.units,
  unitsMap: unitsMapOf(body)
})

export const toTeamEditBody = (body: EditTeamBody): TeamEditBody => ({
  name: body.name,
  description: body.description,
  includesAllRepositories: body.includes_all_repositories,
  canCreateOrgRepo: body.can_create_org_repo,
  permission: body.permission,
  units: body.units,
  unitsMap: unitsMapOf(body)
})
