/** The HTTP application: the API, its description, the git endpoints, and the fallbacks. */
import { Effect, Layer, Option, Result } from "effect"
import { HttpMiddleware, HttpRouter, type HttpServerResponse } from "effect/http"
import { DataChanges } from "@kiln/domain/changes/DataChanges"
import * as RateLimitStoreSql from "@kiln/postgres/stores/RateLimitStoreSql"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { API_PREFIX } from "../api/Paths.ts"
import { KilnConfig, proxyNetwork } from "../config/KilnConfig.ts"
import { AdminUnadoptedHandlers } from "../handlers/AdminUnadoptedHandlers.ts"
import { AdminUsersHandlers } from "../handlers/AdminUsersHandlers.ts"
import { ArchiveHandlers } from "../handlers/ArchiveHandlers.ts"
import { RepoHookHandlers } from "../handlers/RepoHookHandlers.ts"
import { RepoKeyHandlers } from "../handlers/RepoKeyHandlers.ts"
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
import * as HealthRoute from "../health/HealthRoute.ts"
import * as LfsRoutes from "../lfs/LfsRoutes.ts"
import * as MetricsRoute from "../metrics/MetricsRoute.ts"
import * as RequestMetrics from "../metrics/RequestMetrics.ts"
import { ServerMetrics } from "../metrics/ServerMetrics.ts"
import * as EditorConfigMatcherLive from "../platform/editorconfig/EditorConfigMatcherLive.ts"
import { accessLog } from "./AccessLog.ts"
import { conditionalResponses } from "./conditional/ConditionalResponses.ts"
import { headAsGet } from "./conditional/HeadRequests.ts"
import { DirectRoutes } from "./DirectRoutes.ts"
import { ValidatorCache } from "./conditional/ValidatorCache.ts"
import { corsResponses, listedOrigin } from "./cors/CorsResponses.ts"
import { rateLimitHeaders } from "./ratelimit/RateLimitHeaders.ts"
import * as RateLimiter from "./ratelimit/RateLimiter.ts"
import { crossSiteRequestGuard } from "./CrossSiteRequestGuard.ts"
import { forgejoErrorResponses } from "./ErrorResponses.ts"
import * as ApiErrors from "./ApiErrors.ts"
import * as Authentication from "./Authentication.ts"
import * as BindingErrors from "./BindingErrors.ts"
import * as GitRoutes from "./GitRoutes.ts"
import * as LeanRequests from "./LeanRequests.ts"
import * as NotFoundRoute from "./NotFoundRoute.ts"
import * as RequestBodies from "./bodies/RequestBodies.ts"
import * as OrgAssignment from "./OrgAssignment.ts"
import { requestLimits } from "./RequestLimits.ts"
import { forLastTarget, pathnameOf } from "./RequestTarget.ts"
import * as SignedInGate from "./SignedInGate.ts"
import * as SiteAdminGate from "./SiteAdminGate.ts"
import { forgejoSecurity, forgejoSecurityDefinitions } from "./swagger/SwaggerSecurity.ts"
import { declareKilnHeaders } from "./swagger/SwaggerKilnHeaders.ts"
import { SwaggerRoutes } from "./swagger/SwaggerRoutes.ts"
import * as TeamAssignment from "./TeamAssignment.ts"
import { textInputGuard } from "./TextInputGuard.ts"
import { warnOnForwardedHeaders } from "./UnforwardedClients.ts"

const Handlers = Layer.mergeAll(MiscHandlers, AdminUsersHandlers, UsersHandlers)
  .pipe(Layer.merge(MarkdownHandlers))
  .pipe(Layer.merge(OrgHandlers))
  .pipe(Layer.merge(Layer.mergeAll(QuotaAdminHandlers, UserQuotaHandlers)))
  .pipe(Layer.merge(OrgQuotaHandlers))
  .pipe(Layer.merge(AdminUnadoptedHandlers))

const RepoGroups = Layer.mergeAll(RepoHandlers, RepoUserHandlers, RepoOrgHandlers)
const GitGroups = Layer.mergeAll(BranchHandlers, CommitStatusHandlers, RepoHookHandlers, RepoKeyHandlers)
const ContentGroups = Layer.mergeAll(ArchiveHandlers, EditorConfigHandlers, ForkHandlers, MigrateHandlers)
  .pipe(Layer.provide(EditorConfigMatcherLive.layer))
const AssetGroups = Layer.mergeAll(ReleaseHandlers, PackageHandlers)

const Middlewares = Layer.mergeAll(Authentication.layer, BindingErrors.layer, SiteAdminGate.layer, RequestBodies.layer)
  .pipe(Layer.merge(Layer.mergeAll(OrgAssignment.layer, TeamAssignment.layer, SignedInGate.layer)))

/** Requests that change no data: the health check, git's advertisements and fetches (ConditionalResponses.ts). */
export const changesNothing = (url: string): boolean => HealthRoute.isHealthRequest(url) || GitRoutes.isSmartHttpRead(url)

export const ApiRoutes = HttpApiBuilder.layer(Api).pipe(Layer.provide(Handlers), Layer.provide(RepoGroups), Layer.provide(GitGroups), Layer.provide(ContentGroups), Layer.provide(AssetGroups), Layer.provide(Middlewares))

/** Serves every route on the HttpServer in context. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* KilnConfig
  const errorUrl = `${config.rootUrl}api/swagger`
  const description = SwaggerRoutes(Api, new URL(config.rootUrl).pathname, {
    title: "Kiln API",
    version: "1.1.1",
    description: "Kiln serves the Forgejo API: the clients and tools made for Forgejo and Gitea work with it. " +
      "Beyond Forgejo: every JSON answer to a GET carries a strong ETag (If-None-Match answers 304, which spends " +
      "no rate-limit budget), HEAD answers every GET route, lists carry X-Total-Count and Link, budgets show in " +
      "X-RateLimit-* headers and GET /rate_limit, and a spent budget answers 429 with Retry-After.",
    securityDefinitions: forgejoSecurityDefinitions,
    security: forgejoSecurity,
    decorate: declareKilnHeaders
  })
  const smartHttp = yield* GitRoutes.make
  const directRoutes = yield* Effect.serviceOption(DirectRoutes)
  if (Option.isSome(directRoutes) && smartHttp.direct !== undefined) directRoutes.value.add(smartHttp.direct)
  // The LFS API is git's too: its uploads are unlimited streams, its answers its own JSON, and it
  // reads its bodies itself (within KILN_HTTP_MAX_BODY_SIZE).
  const git = {
    ...smartHttp,
    isGitPath: forLastTarget((url) => smartHttp.isGitPath(url) || (config.lfs.enabled && LfsRoutes.isLfsPath(pathnameOf(url))))
  }
  const limits = requestLimits({ maxBodySize: config.maxBodySize, errorUrl, exempt: git.isGitPath })
  const errorResponses = forgejoErrorResponses(errorUrl, (url) => git.isGitPath(url) || HealthRoute.isHealthRequest(url))
  const guard = textInputGuard(errorUrl, git.isGitPath)
  const crossSite = crossSiteRequestGuard(config.rootUrl, errorUrl, config.cors.enabled ? listedOrigin(config.cors) : undefined)
  const conditional = conditionalResponses(yield* DataChanges, {
    // The health check answers what the database and the disk say now, not what a write changed.
    exempt: (url) => git.isGitPath(url) || HealthRoute.isHealthRequest(url),
    changesNothing,
    // The unadopted directories are read from the disk, which changes without a write through Kiln;
    // a budget changes with every request, which moves no data version.
    remembers: (url) => !url.startsWith(`${API_PREFIX}/admin/unadopted`) && !url.startsWith(`${API_PREFIX}/rate_limit`),
    cache: new ValidatorCache({ maxBytes: 16 * 1024 * 1024 })
  })
  const rateLimits = rateLimitHeaders(yield* RateLimiter.RateLimiter)
  const cors = config.cors.enabled ? corsResponses(config.cors, git.isGitPath) : undefined
  const proxies = config.trustedProxies.flatMap((proxy) => {
    const network = proxyNetwork(proxy)
    return Result.isSuccess(network) ? [network.success] : []
  })
  const forwarded = proxies.length > 0 ? HttpMiddleware.xForwardedHeaders({ trustedProxies: proxies }) : undefined
  // Router-wide rather than `serve`'s middleware: with none there (and tracing off), the server
  // handles each request in a single continuation frame. Nothing here reads a body: each route
  // reads its own after routing and authentication (bodies/RequestBodies.ts); the guard and the
  // cross-site refusal read only the request line and headers. The error shaping sits outside the
  // rest, whose answers (413 and the refusals of a body included) it shapes. Rate limits count the
  // answer conditional requests settle (a 304 is free); CORS grants every answer.
  const shaped = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    rateLimits(conditional(headAsGet(errorResponses(crossSite(limits(guard(app)))))))
  const withCors = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    cors === undefined ? shaped(app) : cors(shaped(app))
  const logged = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    config.accessLog ? accessLog(withCors(app)) : withCors(app)
  // The access log inside the forwarded headers: it names the client, not the proxy.
  const unforwarded = warnOnForwardedHeaders()
  const boundary = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    forwarded === undefined ? unforwarded(logged(app)) : forwarded(logged(app))
  // Requests are measured only when /metrics is served.
  const measured = Option.isSome(config.metricsToken) ? RequestMetrics.measure(yield* ServerMetrics, git.isGitPath) : undefined
  const bodyLimitAndLog = HttpRouter.middleware((app) => measured === undefined ? boundary(app) : measured(boundary(app)), {
    global: true
  })
  const routes = Layer.mergeAll(ApiRoutes, description, NotFoundRoute.layer(errorUrl, git.fallback), MetricsRoute.layer)
    .pipe(Layer.merge(Layer.mergeAll(AttachmentDownloadRoutes.layer, GenericPackageRoutes.layer, HealthRoute.layer, bodyLimitAndLog)))
    .pipe(Layer.merge(LfsRoutes.layer))
  return LeanRequests.serve(routes, { routerConfig: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true } })
})).pipe(
  Layer.provide(ApiErrors.layer),
  Layer.provide(RateLimiter.layer.pipe(Layer.provide(RateLimitStoreSql.layer)))
)
