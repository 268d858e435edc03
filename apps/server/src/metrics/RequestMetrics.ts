/**
 * Measures every request for ServerMetrics: counted and timed by method, route template (the
 * router's path, `/api/v1/repos/:owner/:repo`, never the concrete path, so the label set stays
 * bounded) and status, with git's smart HTTP and archives also counted as git operations.
 */
import { Effect, Option } from "effect"
import { HttpRouter, type HttpServerResponse } from "effect/http"
import type { GitOperation, ServerMetrics } from "./ServerMetrics.ts"
import { pathnameOf } from "../http/RequestTarget.ts"
import { withRequest } from "../http/ServedRequest.ts"

interface GitRequest {
  readonly operation: GitOperation
  /** The request that starts the operation (counted once per operation, with its outcome). */
  readonly starts: boolean
  /** A request moving the operation's data (timed, its bytes counted). */
  readonly transfers: boolean
}

/**
 * Git's smart HTTP makes one ref advertisement (`GET info/refs`) per clone, fetch or push, then one
 * or more data requests (protocol v2 posts `ls-refs` and `fetch` separately): the advertisement
 * counts the operation, the data requests its time and bytes. An archive is one request.
 */
const gitRequestOf = (method: string, url: string, pathname: string, route: string | undefined): GitRequest | undefined => {
  if (method === "GET" && pathname.endsWith("/info/refs")) {
    const service = new URL(url, "http://internal").searchParams.get("service")
    if (service === "git-upload-pack") return { operation: "clone", starts: true, transfers: false }
    if (service === "git-receive-pack") return { operation: "push", starts: true, transfers: false }
    return undefined
  }
  if (method === "POST" && pathname.endsWith("/git-upload-pack")) return { operation: "clone", starts: false, transfers: true }
  if (method === "POST" && pathname.endsWith("/git-receive-pack")) return { operation: "push", starts: false, transfers: true }
  if (method === "GET" && route?.includes("/archive/") === true) return { operation: "archive", starts: true, transfers: true }
  return undefined
}

const contentLength = (value: string | undefined): number => {
  const bytes = Number(value)
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : 0
}

export const measure = (metrics: typeof ServerMetrics.Service, isGitPath: (pathname: string) => boolean) =>
<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  withRequest((request) => {
    const started = performance.now()
    metrics.inFlight.inc()
    return Effect.onExit(app, (exit) =>
      Effect.map(Effect.serviceOption(HttpRouter.RouteContext), (routeContext) => {
        metrics.inFlight.dec()
        const seconds = (performance.now() - started) / 1000
        const response = exit._tag === "Success" ? exit.value : undefined
        const status = String(response?.status ?? 500)
        const pathname = pathnameOf(request.url)
        const template = isGitPath(pathname)
          ? "git"
          : Option.match(routeContext, { onNone: () => "unmatched", onSome: (context) => context.route.path })
        const labels = { method: request.method, route: template === "/*" ? "unmatched" : template, status }
        metrics.requests.inc(labels)
        metrics.requestDuration.observe(labels, seconds)
        const git = gitRequestOf(request.method, request.url, pathname, Option.getOrUndefined(routeContext)?.route.path)
        if (git === undefined) return
        const { operation } = git
        if (git.starts) {
          metrics.gitOperations.inc({
            operation,
            outcome: response !== undefined && response.status < 400 ? "success" : "failure",
            transport: "http"
          })
        }
        if (!git.transfers) return
        metrics.gitDuration.observe({ operation }, seconds)
        const bytes = operation === "push"
          ? contentLength(request.headers["content-length"])
          : contentLength(response?.headers["content-length"])
        metrics.gitBytes.inc({ operation }, bytes)
      }))
  })
