/** Teams of an organization and their members (api-facts §5.3), in the "organization" group. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiForbidden, ApiNotFound, ApiValidationFailed } from "../http/ApiErrors.ts"
import { OrgAssignment, OrgGate } from "../http/OrgAssignment.ts"
import { TeamAssignment, TeamGate } from "../http/TeamAssignment.ts"
import { ScopeCategories } from "../http/TokenScope.ts"
import { RepositoryJson, RepositoryListJson } from "../wire/Repository.ts"
import { CreateTeamOption, EditTeamOption, TeamJson } from "../wire/Team.ts"
import { UserJson } from "../wire/User.ts"
import { PagingQuery } from "./QueryParams.ts"

const org = { org: Schema.String }
const id = { id: Schema.String.annotate({ format: "int64", description: "id of the team" }) }
const member = { ...id, username: Schema.String }
/** The `{org}` segment is ignored, as in Forgejo: the repository is looked up in the team's organization. */
const teamRepository = { ...id, org: Schema.String, repo: Schema.String }

export const TeamEndpoints = [
  HttpApiEndpoint.get("orgListTeams", "/orgs/:org/teams", {
    params: org,
    query: PagingQuery,
    success: Schema.Array(TeamJson)
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "member"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "List an organization's teams"),
  HttpApiEndpoint.post("orgCreateTeam", "/orgs/:org/teams", {
    params: org,
    payload: CreateTeamOption,
    success: TeamJson.pipe(HttpApiSchema.status(201)),
    error: ApiValidationFailed
  }).middleware(OrgAssignment).annotate(OrgGate, ["token", "member", "owner"])
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Create a team"),
  HttpApiEndpoint.get("orgGetTeam", "/teams/:id", {
    params: id,
    success: TeamJson
  }).middleware(TeamAssignment).annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Get a team"),
  HttpApiEndpoint.patch("orgEditTeam", "/teams/:id", {
    params: id,
    payload: EditTeamOption,
    success: TeamJson,
    error: ApiValidationFailed
  }).middleware(TeamAssignment).annotate(TeamGate, "owner")
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Edit a team"),
  HttpApiEndpoint.delete("orgDeleteTeam", "/teams/:id", {
    params: id,
    success: HttpApiSchema.NoContent
  }).middleware(TeamAssignment).annotate(TeamGate, "owner")
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Delete a team"),
  HttpApiEndpoint.get("orgListTeamMembers", "/teams/:id/members", {
    params: id,
    query: PagingQuery,
    success: Schema.Array(UserJson)
  }).middleware(TeamAssignment).annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "List a team's members"),
  HttpApiEndpoint.get("orgListTeamMember", "/teams/:id/members/:username", {
    params: member,
    success: UserJson,
    error: ApiNotFound
  }).middleware(TeamAssignment).annotate(ScopeCategories, ["organization"])
    .annotate(OpenApi.Summary, "List a particular member of team"),
  HttpApiEndpoint.put("orgAddTeamMember", "/teams/:id/members/:username", {
    params: member,
    success: HttpApiSchema.NoContent,
    error: ApiNotFound
  }).middleware(TeamAssignment).annotate(TeamGate, "owner")
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Add a team member"),
  HttpApiEndpoint.delete("orgRemoveTeamMember", "/teams/:id/members/:username", {
    params: member,
    success: HttpApiSchema.NoContent,
    error: [ApiNotFound, ApiValidationFailed]
  }).middleware(TeamAssignment).annotate(TeamGate, "owner")
    .annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "Remove a team member"),
  HttpApiEndpoint.get("orgListTeamRepos", "/teams/:id/repos", {
    params: id,
    query: PagingQuery,
    success: RepositoryListJson
  }).middleware(TeamAssignment).annotate(ScopeCategories, ["organization"]).annotate(OpenApi.Summary, "List a team's repos"),
  HttpApiEndpoint.get("orgListTeamRepo", "/teams/:id/repos/:org/:repo", {
    params: teamRepository,
    success: RepositoryJson,
    error: ApiNotFound
  }).middleware(TeamAssignment).annotate(ScopeCategories, ["organization"])
    .annotate(OpenApi.Summary, "List a particular repo of team"),
  HttpApiEndpoint.put("orgAddTeamRepository", "/teams/:id/repos/:org/:repo", {
    params: teamRepository,
    success: HttpApiSchema.NoContent,
    error: [ApiForbidden, ApiNotFound]
  }).middleware(TeamAssignment).annotate(TeamGate, "repositories").annotate(ScopeCategories, ["organization"])
    .annotate(OpenApi.Summary, "Add a repository to a team"),
  HttpApiEndpoint.delete("orgRemoveTeamRepository", "/teams/:id/repos/:org/:repo", {
    params: teamRepository,
    success: HttpApiSchema.NoContent,
    error: [ApiForbidden, ApiNotFound]
  }).middleware(TeamAssignment).annotate(TeamGate, "repositories").annotate(ScopeCategories, ["organization"])
    .annotate(OpenApi.Summary, "Remove a repository from a team")
] as const
