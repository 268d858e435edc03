/**
 * The whole Kiln server on a real socket (port 0) over a fresh test database, with a site
 * administrator, and a small HTTP client for the tests.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import * as DataChangesPg from "@kiln/postgres/coordination/DataChangesPg"
import * as Migrations from "@kiln/postgres/migrations"
import * as TestDatabase from "@kiln/postgres/testing/TestDatabase"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as AdminBootstrap from "../../src/AdminBootstrap.ts"
import * as BackgroundWork from "../../src/BackgroundWork.ts"
import * as Application from "../../src/Application.ts"
import { KilnConfig, type KilnSettings } from "../../src/config/KilnConfig.ts"
import * as DirectRoutes from "../../src/http/DirectRoutes.ts"
import * as HttpApp from "../../src/http/HttpApp.ts"
import * as MarkdownRenderer from "../../src/MarkdownRenderer.ts"
import { ScryptCost } from "../../src/platform/ScryptPasswordHasher.ts"
import * as DatabaseMetrics from "../../src/metrics/DatabaseMetrics.ts"
import * as ServerMetrics from "../../src/metrics/ServerMetrics.ts"
import * as SigningKey from "../../src/SigningKey.ts"

export const ROOT_URL = "http://kiln.test/"
export const ADMIN = { username: "root", password: "root-password", email: "root@kiln.test" } as const

export const testSettings = (overrides: Partial<KilnSettings> = {}): KilnSettings => ({
  httpHost: "127.0.0.1",
  httpPort: 0,
  rootUrl: ROOT_URL,
  dataDir: mkdtempSync(join(tmpdir(), "kiln-test-")),
  databaseUrl: Option.none(),
  admin: Option.some({ username: ADMIN.username, password: Redacted.make(ADMIN.password), email: ADMIN.email }),
  maxBodySize: 1024 * 1024,
  httpIdleTimeoutSeconds: 60,
  gitIdleTimeoutSeconds: 120,
  gitMaxProcesses: 16,
  signInMaxFailuresPerAccount: 10,
  signInMaxFailuresPerAddress: 100,
  signInFailureWindowSeconds: 900,
  passwordHashMaxConcurrent: 2,
  markdownMaxSize: 1024 * 1024,
  markdownMaxQueue: 64,
  signingKey: "none",
  signingName: "Kiln",
  signingEmail: "noreply@kiln.test",
  signingKeyPassphrase: Option.none(),
  quotaDefaultGroups: [],
  quotaEnforce: false,
  attachmentMaxSize: 100 * 1024 * 1024,
  migrationsAllowLocal: false,
  migrationsAllowedDomains: [],
  migrationsAllowLocalPaths: false,
  migrationsMaxSize: 2 * 1024 * 1024 * 1024,
  archiveCacheMaxSize: 1024 * 1024 * 1024,
  archiveMaxConcurrent: 2,
  gitPackCacheMaxSize: 256 * 1024 * 1024,
  metricsToken: Option.none(),
  accessLog: false,
  shutdownTimeout: 30,
  rateLimitAuthenticated: 0,
  rateLimitAnonymous: 0,
  rateLimitSearch: 0,
  rateLimitAdmins: false,
  trustedProxies: [],
  cors: { enabled: false, allowOrigins: ["*"], methods: ["GET"], headers: [], maxAge: 600, allowCredentials: false },
  // Receivers in the tests listen on loopback; retries come quickly.
  webhook: { deliverTimeout: 2_000, retryDelay: 200, maxAttempts: 3, historyDays: 7, allowedHosts: "loopback" },
  ssh: {
    port: 0,
    host: "127.0.0.1",
    domain: "kiln.test",
    externalPort: 22,
    user: "git",
    hostKeys: [],
    maxUnauthenticated: 64,
    maxUnauthenticatedPerAddress: 8,
    authTimeoutSeconds: 30
  },
  lfs: { enabled: true, maxFileSize: 0, maxBatchSize: 0, locksPageSize: 50, collectionGraceMillis: 24 * 60 * 60 * 1000 },
  ...overrides
})

/** log2 of scrypt's N for the test suite's password hashes. */
export const TEST_SCRYPT_COST = 10

export const DatabaseLive = Migrations.layer.pipe(Layer.provideMerge(TestDatabase.layer))

/**
 * The application over the test database, without HTTP (what an embedding service would build).
 * Password hashes use a far lower scrypt cost than production's N=2^17: the suite signs in with
 * passwords thousands of times.
 */
export const applicationLive = (scryptCost: number) =>
  Application.layer.pipe(Layer.provideMerge(DatabaseLive), Layer.provide(Layer.succeed(ScryptCost, scryptCost)))

export const ApplicationLive = applicationLive(TEST_SCRYPT_COST)

/** A server on a free port of the loopback asking its direct routes first, as the server Kiln runs does. */
const listening = DirectRoutes.serving((table) =>
  NodeHttpServer.layer(() => DirectRoutes.routeDirectly(createServer(), table), { port: 0, host: "127.0.0.1" })
)

/** `scryptCost`: log2 of N for password hashes; production's 17 where a test needs real cost. */
export const layer = (overrides: Partial<KilnSettings> = {}, options: { readonly scryptCost?: number } = {}) =>
  HttpApp.layer.pipe(
    Layer.provideMerge(DataChangesPg.layer()),
    Layer.provide(AdminBootstrap.layer),
    Layer.provide(BackgroundWork.layer),
    Layer.provide(DatabaseMetrics.layer),
    Layer.provideMerge(MarkdownRenderer.layer),
    Layer.provideMerge(options.scryptCost === undefined ? ApplicationLive : applicationLive(options.scryptCost)),
    Layer.provideMerge(SigningKey.layer),
    Layer.provideMerge(listening),
    Layer.provideMerge(ServerMetrics.layer),
    Layer.provideMerge(Layer.succeed(KilnConfig, testSettings(overrides)))
  )

export interface Auth {
  readonly basic?: { readonly username: string; readonly password: string }
  readonly token?: string
  readonly bearer?: string
}

export interface RequestOptions {
  readonly auth?: Auth | undefined
  readonly json?: unknown
  readonly form?: Record<string, string>
  readonly body?: string
  readonly contentType?: string
  readonly headers?: Record<string, string>
}

export interface TestResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON (undefined when empty or not JSON); read it with `at`. */
  readonly body: unknown
}

const authorization = (auth: Auth | undefined): Record<string, string> => {
  if (auth === undefined) return {}
  if (auth.basic !== undefined) {
    return { authorization: `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString("base64")}` }
  }
  if (auth.token !== undefined) return { authorization: `token ${auth.token}` }
  if (auth.bearer !== undefined) return { authorization: `Bearer ${auth.bearer}` }
  return {}
}

/** The base URL of the server in the current layer. */
export const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  return address._tag === "UnixPathAddress" ? "" : `http://127.0.0.1:${address.port}`
})

export const request = (method: string, path: string, options: RequestOptions = {}) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const headers: Record<string, string> = { ...authorization(options.auth), ...options.headers }
    let body: string | undefined
    if (options.json !== undefined) {
      body = JSON.stringify(options.json)
      headers["content-type"] = "application/json"
    } else if (options.form !== undefined) {
      body = new URLSearchParams(options.form).toString()
      headers["content-type"] = "application/x-www-form-urlencoded"
    } else if (options.body !== undefined) {
      body = options.body
      headers["content-type"] = options.contentType ?? "application/json"
    }
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }), redirect: "manual" })
    )
    const text = yield* Effect.promise(() => response.text())
    let parsed: unknown = undefined
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, text, body: parsed } satisfies TestResponse
  })

export const admin: Auth = { basic: { username: ADMIN.username, password: ADMIN.password } }
export const basic = (username: string, password: string): Auth => ({ basic: { username, password } })

/** Creates an active user that may use the API (must_change_password false) and returns its credentials. */
export const createUser = (username: string, extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const password = `${username}-password`
    const response = yield* request("POST", "/api/v1/admin/users", {
      auth: admin,
      json: { username, email: `${username}@example.com`, password, must_change_password: false, ...extra }
    })
    if (response.status !== 201) return yield* Effect.die(new Error(`creating ${username}: ${response.status} ${response.text}`))
    return { user: response.body, auth: basic(username, password), password }
  })

/** Issues a token for a user (Basic auth) with the given scopes and returns its secret. */
export const createToken = (auth: Auth, username: string, name: string, scopes: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const response = yield* request("POST", `/api/v1/users/${username}/tokens`, { auth, json: { name, scopes } })
    if (response.status !== 201) return yield* Effect.die(new Error(`token ${name}: ${response.status} ${response.text}`))
    return String(at(response.body, "sha1"))
  })

/** The value at a path into parsed JSON, or undefined. */
export const at = (value: unknown, ...path: ReadonlyArray<string | number>): unknown => {
  let current = value
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined
    current = (current as Record<string | number, unknown>)[key]
  }
  return current
}
