/** The HTTP application: the API, its description, the git endpoints, and the fallbacks. */
import { Effect, Layer } from "effect"
import { HttpRouter, type HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import { AdminUnadoptedHandlers } from "../handlers/AdminUnadoptedHandlers.ts"
import { AdminUsersHandlers } from "../handlers/AdminUsersHandlers.ts"
import { ArchiveHandlers } from "../handlers/ArchiveHandlers.ts"
import { RepoHookHandlers } from "../handlers/RepoHookHandlers.ts"
import { BranchHandlers } from "../handlers/BranchHandlers.ts"
import { CommitStatusHandlers } from "../handlers/CommitStatusHandlers.ts"
import { EditorConfigHandlers } from "../handlers/EditorConfigHandlers.ts"
import { ForkHandlers } from "../handlers/ForkHandlers.ts"
import { MarkdownHandlers } from "../handlers/MarkdownHandlers.ts"
import { MigrateHandlers } from "../handlers/MigrateHandlers.ts"
import { MiscHandlers } from "../handlers/MiscHandlers.ts"
import { OrgHandlers } from "../handlers/OrgHandlers.ts"
import { PackageHandlers } from "../handlers/PackageHandlers.ts"
import { QuotaAdminHandlers } from "../handlers/QuotaAdminHandlers.ts"
import { OrgQuotaHandlers } from "../handlers/QuotaOrgHandlers.ts"
import { UserQuotaHandlers } from "../handlers/QuotaUsageHandlers.ts"
import { UsersHandlers } from "../handlers/UsersHandlers.ts"
import { ReleaseHandlers } from "../handlers/ReleaseHandlers.ts"
import { RepoHandlers } from "../handlers/RepoHandlers.ts"
import { RepoOrgHandlers } from "../handlers/RepoOrgHandlers.ts"
import { RepoUserHandlers } from "../handlers/RepoUserHandlers.ts"
import * as AttachmentDownloadRoutes from "../handlers/AttachmentDownloadRoutes.ts"
import * as GenericPackageRoutes from "../handlers/GenericPackageRoutes.ts"
import { isUploadRequest, uploadBodyLimit } from "../handlers/UploadRequests.ts"
import * as EditorConfigMatcherLive from "../platform/editorconfig/EditorConfigMatcherLive.ts"
import { accessLog } from "./AccessLog.ts"
import { forgejoErrorResponses } from "./ErrorResponses.ts"
import * as ApiErrors from "./ApiErrors.ts"
import * as Authentication from "./Authentication.ts"
import * as BindingErrors from "./BindingErrors.ts"
import * as GitRoutes from "./GitRoutes.ts"
import * as NotFoundRoute from "./NotFoundRoute.ts"
import * as OrgAssignment from "./OrgAssignment.ts"
import { requestLimits } from "./RequestLimits.ts"
import * as SignedInGate from "./SignedInGate.ts"
import * as SiteAdminGate from "./SiteAdminGate.ts"
import { forgejoSecurity, forgejoSecurityDefinitions } from "./swagger/SwaggerSecurity.ts"
import { SwaggerRoutes } from "./swagger/SwaggerRoutes.ts"
import * as TeamAssignment from "./TeamAssignment.ts"
import { textInputGuard } from "./TextInputGuard.ts"

const Handlers = Layer.mergeAll(MiscHandlers, AdminUsersHandlers, UsersHandlers)
  .pipe(Layer.merge(MarkdownHandlers))
  .pipe(Layer.merge(OrgHandlers))
  .pipe(Layer.merge(Layer.mergeAll(QuotaAdminHandlers, UserQuotaHandlers)))
  .pipe(Layer.merge(OrgQuotaHandlers))
  .pipe(Layer.merge(AdminUnadoptedHandlers))

const RepoGroups = Layer.mergeAll(RepoHandlers, RepoUserHandlers, RepoOrgHandlers)
const GitGroups = Layer.mergeAll(BranchHandlers, CommitStatusHandlers, RepoHookHandlers)
const ContentGroups = Layer.mergeAll(ArchiveHandlers, EditorConfigHandlers, ForkHandlers, MigrateHandlers)
  .pipe(Layer.provide(EditorConfigMatcherLive.layer))
const AssetGroups = Layer.mergeAll(ReleaseHandlers, PackageHandlers)

const Middlewares = Layer.mergeAll(Authentication.layer, BindingErrors.layer, SiteAdminGate.layer)
  .pipe(Layer.merge(Layer.mergeAll(OrgAssignment.layer, TeamAssignment.layer, SignedInGate.layer)))

export const ApiRoutes = HttpApiBuilder.layer(Api).pipe(Layer.provide(Handlers), Layer.provide(RepoGroups), Layer.provide(GitGroups), Layer.provide(ContentGroups), Layer.provide(AssetGroups), Layer.provide(Middlewares))

/** Serves every route on the HttpServer in context. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* KilnConfig
  const errorUrl = `${config.rootUrl}api/swagger`
  const description = SwaggerRoutes(Api, new URL(config.rootUrl).pathname, {
    title: "Kiln API",
    version: "1.1.1",
    description: "Kiln serves the Forgejo API: the clients and tools made for Forgejo and Gitea work with it.",
    securityDefinitions: forgejoSecurityDefinitions,
    security: forgejoSecurity
  })
  const git = yield* GitRoutes.make
  const limits = requestLimits({
    maxBodySize: config.maxBodySize,
    errorUrl,
    exempt: git.isGitPath,
    uploads: { maxSize: uploadBodyLimit(config.attachmentMaxSize), matches: isUploadRequest }
  })
  const errorResponses = forgejoErrorResponses(errorUrl, git.isGitPath)
  const guard = textInputGuard(errorUrl, git.isGitPath)
  // Router-wide rather than `serve`'s middleware: with none there (and tracing off), the server
  // handles each request in a single continuation frame. The error shaping sits outside the body
  // limit, whose 413 it shapes too; the input guard inside it, so that its read is limited.
  const boundary = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    errorResponses(limits(guard(app)))
  const bodyLimitAndLog = HttpRouter.middleware((app) => config.accessLog ? accessLog(boundary(app)) : boundary(app), {
    global: true
  })
  const routes = Layer.mergeAll(ApiRoutes, description, NotFoundRoute.layer(errorUrl, git.fallback))
    .pipe(Layer.merge(Layer.mergeAll(AttachmentDownloadRoutes.layer, GenericPackageRoutes.layer, bodyLimitAndLog)))
  return HttpRouter.serve(routes, {
    disableLogger: true,
    routerConfig: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true }
  })
})).pipe(Layer.provide(ApiErrors.layer))
