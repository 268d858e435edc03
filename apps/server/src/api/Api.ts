/** The whole `/api/v1` surface: the one definition that serves requests and describes itself. */
import { HttpApi, OpenApi } from "effect/http-api"
import { Authentication } from "../http/Authentication.ts"
import { BindingErrors } from "../http/BindingErrors.ts"
import { RequestBodies } from "../http/bodies/RequestBodies.ts"
import { AdminUnadoptedApi } from "./AdminUnadoptedApi.ts"
import { AdminUsersApi } from "./AdminUsersApi.ts"
import { ArchiveApi } from "./ArchiveApi.ts"
import { BranchesApi } from "./BranchesApi.ts"
import { CommitStatusesApi } from "./CommitStatusesApi.ts"
import { EditorConfigApi } from "./EditorConfigApi.ts"
import { ForkApi } from "./ForkApi.ts"
import { MarkdownApi } from "./MarkdownApi.ts"
import { MigrateApi } from "./MigrateApi.ts"
import { MiscApi } from "./MiscApi.ts"
import { OrgsApi } from "./OrgsApi.ts"
import { PackagesApi } from "./PackagesApi.ts"
import { QuotaAdminApi } from "./QuotaAdminApi.ts"
import { ReleasesApi } from "./ReleasesApi.ts"
import { OrgQuotaApi } from "./QuotaOrgApi.ts"
import { UserQuotaApi } from "./QuotaUsageApi.ts"
import { UsersApi } from "./UsersApi.ts"
import { OrgReposApi } from "./OrgReposApi.ts"
import { RepoHooksApi } from "./RepoHooksApi.ts"
import { RepoKeysApi } from "./RepoKeysApi.ts"
import { ReposApi } from "./ReposApi.ts"
import { UserReposApi } from "./UserReposApi.ts"

export class Api extends HttpApi.make("kiln")
  .add(MiscApi, AdminUsersApi, UsersApi)
  .add(AdminUnadoptedApi)
  .add(MarkdownApi)
  .add(OrgsApi)
  .add(QuotaAdminApi, UserQuotaApi)
  .add(OrgQuotaApi)
  .add(ReposApi, UserReposApi, OrgReposApi)
  .add(BranchesApi, CommitStatusesApi, RepoHooksApi, RepoKeysApi)
  .add(ArchiveApi, EditorConfigApi, ForkApi, MigrateApi)
  .add(ReleasesApi, PackagesApi)
  .middleware(BindingErrors)
  // Reads nothing itself: the route reads its body, under its own rules, when it decodes it.
  .middleware(RequestBodies)
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Kiln API", version: "1.1.1" }))
{}
