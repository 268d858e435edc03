/**
 * An internal portal: Kiln's API and git endpoints under `/git-api`, and routes of the portal's own
 * beside them. `GET /usage/{owner}` answers from Kiln's domain services (quota usage), not through
 * Kiln's HTTP API; it still asks Kiln who the caller is (the request's own credentials, through
 * Kiln's `/user`) and answers only the owner themself or a site administrator: domain services
 * skip the API's authentication and visibility rules, so a route built on them must apply its own
 * (review 4b30e64, finding 34).
 */
import { type KilnInstance, type KilnOptions, start } from "@kiln/server"
import { QuotaService } from "@kiln/domain/quota/QuotaService"
import { UserAccounts } from "@kiln/domain/user/UserAccounts"
import { Effect } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface PortalOptions {
  readonly dataDir: string
  readonly port?: number
  readonly host?: string
  /** Kiln's other settings: its administrator, a PostgreSQL server, ... */
  readonly kiln?: Omit<KilnOptions, "rootUrl" | "dataDir">
}

export interface Portal {
  /** `http://host:port`, without a trailing slash. */
  readonly url: string
  readonly kiln: KilnInstance
  readonly close: () => Promise<void>
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

/** An owner's usage in bytes, as Kiln's quota engine counts it; undefined for an unknown owner. */
const usageOf = (kiln: KilnInstance, owner: string) =>
  kiln.runPromise(Effect.gen(function*() {
    const accounts = yield* UserAccounts
    const quota = yield* QuotaService
    const user = yield* accounts.byName(owner)
    const { usage, groups } = yield* quota.info(user.id)
    return { owner: user.name, usage, groups: groups.map((group) => group.name) }
  }).pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined))))

/** The caller as Kiln's API authenticates the request's credentials; undefined when it does not. */
const callerOf = async (apiUrl: string, request: IncomingMessage) => {
  const authorization = request.headers.authorization
  if (authorization === undefined) return undefined
  const answer = await fetch(`${apiUrl}user`, { headers: { authorization } })
  if (answer.status !== 200) return undefined
  const caller = await answer.json() as { readonly login?: unknown; readonly is_admin?: unknown }
  return typeof caller.login === "string" ? { login: caller.login, isAdmin: caller.is_admin === true } : undefined
}

const portalRoutes = (kiln: KilnInstance, apiUrl: string) => async (request: IncomingMessage, response: ServerResponse) => {
  const path = new URL(request.url ?? "/", "http://portal").pathname
  if (request.method === "GET" && path === "/") return json(response, 200, { service: "portal", git: "/git-api/" })
  const usage = /^\/usage\/([^/]+)$/.exec(path)
  if (request.method === "GET" && usage?.[1] !== undefined) {
    const caller = await callerOf(apiUrl, request)
    if (caller === undefined) return json(response, 401, { error: "sign in (a Kiln token or password)" })
    const owner = decodeURIComponent(usage[1])
    // Someone else's usage is as hidden as an owner that does not exist.
    if (!caller.isAdmin && caller.login.toLowerCase() !== owner.toLowerCase()) return json(response, 404, { error: "no such owner" })
    const found = await usageOf(kiln, owner)
    return found === undefined ? json(response, 404, { error: "no such owner" }) : json(response, 200, found)
  }
  json(response, 404, { error: "not found" })
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port))
  })

export const startPortal = async (options: PortalOptions): Promise<Portal> => {
  const host = options.host ?? "127.0.0.1"
  const server = createServer()
  const port = await listen(server, options.port ?? 0, host)
  const url = `http://${host}:${port}`
  // Every URL Kiln writes (clone_url, html_url, ...) carries /git-api/: it comes from the root URL.
  const kiln = await start({ ...options.kiln, rootUrl: `${url}/git-api/`, dataDir: options.dataDir })
  const own = portalRoutes(kiln, `${url}/git-api/api/v1/`)
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    kiln.handler(request, response, () => {
      own(request, response).catch(() => json(response, 500, { error: "internal error" }))
    })
  })
  return {
    url,
    kiln,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await kiln.close()
    }
  }
}
