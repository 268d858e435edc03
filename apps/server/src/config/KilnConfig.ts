/**
 * Every setting Kiln reads from its environment, validated once at start-up.
 * Each bad value produces its own line, so an operator fixes them all in one go.
 */
import { Config, ConfigProvider, Context, Effect, Layer, Option, Redacted, Result, Schema } from "effect"
import { IpNetwork } from "effect/net"
import { globLengthError } from "@kiln/domain/repo/NameGlob"
import { DEFAULT_ALLOWED_HOSTS } from "@kiln/domain/webhook/AllowedHosts"
import type { WebhookSettingsShape } from "@kiln/domain/webhook/WebhookSettings"
import type { LfsSettingsShape } from "@kiln/domain/lfs/LfsSettings"
import { defaultMaxGitProcesses } from "@kiln/git"

export interface KilnSettings {
  readonly httpHost: string
  readonly httpPort: number
  /** Absolute, always ending with `/` (Forgejo's AppURL). */
  readonly rootUrl: string
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly admin: Option.Option<{
    readonly username: string
    readonly password: Redacted.Redacted<string>
    readonly email: string
  }>
  /** Largest option body (JSON, form) an API route reads, in bytes (413 beyond); uploads have their own limit. */
  readonly maxBodySize: number
  /** A connection on which the client lets nothing move for this long is closed (0: never). */
  readonly httpIdleTimeoutSeconds: number
  /** A git process through which nothing moves for this long is stopped (0: never). */
  readonly gitIdleTimeoutSeconds: number
  /** Git processes (clone, fetch, push) serving clients at once; more wait their turn. */
  readonly gitMaxProcesses: number
  /** Failed password sign-ins of one account per window before it is refused with 429 (0: no limit). */
  readonly signInMaxFailuresPerAccount: number
  /** Failed password sign-ins from one client address per window before it is refused with 429 (0: no limit). */
  readonly signInMaxFailuresPerAddress: number
  /** The window failed sign-ins are counted in, in seconds. */
  readonly signInFailureWindowSeconds: number
  /** Password hashes (scrypt, 128 MiB each) derived at once; more sign-ins wait briefly, then get 429. */
  readonly passwordHashMaxConcurrent: number
  readonly markdownMaxSize: number
  /** Renders that may wait for a render worker; more are answered 503 with Retry-After. */
  readonly markdownMaxQueue: number
  readonly signingKey: "generate" | "none" | { readonly path: string }
  readonly signingName: string
  readonly signingEmail: string
  readonly signingKeyPassphrase: Option.Option<Redacted.Redacted<string>>
  readonly quotaDefaultGroups: ReadonlyArray<string>
  /** KILN_QUOTA_ENFORCE: refuse writes of owners over quota (off: quotas only report, as the spec says). */
  readonly quotaEnforce: boolean
  readonly attachmentMaxSize: number
  /** One JSON line per request on standard output. */
  readonly accessLog: boolean
  /** Migrations may clone from loopback and private networks. */
  readonly migrationsAllowLocal: boolean
  /** When set, migrations may clone only from these host names (globs). */
  readonly migrationsAllowedDomains: ReadonlyArray<string>
  /** Site admins may migrate from local directories. */
  readonly migrationsAllowLocalPaths: boolean
  /** Bytes a migration may take before it is aborted. */
  readonly migrationsMaxSize: number
  /** Bytes of archives kept on disk; past it, those used longest ago are removed. */
  readonly archiveCacheMaxSize: number
  /** Archives made at once; more requests wait for a turn. */
  readonly archiveMaxConcurrent: number
  /** Bytes of git packs kept in memory for reading; repositories with larger packs are read with git itself. */
  readonly gitPackCacheMaxSize: number
  /** Seconds a stopping server (SIGTERM) gives in-flight requests, clones and pushes to finish. */
  readonly shutdownTimeout: number
  /** Requests per hour of each signed-in user; 0: no budget (nor its headers). */
  readonly rateLimitAuthenticated: number
  /** Requests per hour of each client address signed in as nobody; 0: no budget. */
  readonly rateLimitAnonymous: number
  /** Search requests per hour of each caller who has a budget; 0: searches count as other requests. */
  readonly rateLimitSearch: number
  /** Site administrators have budgets too (they are exempt otherwise). */
  readonly rateLimitAdmins: boolean
  /** Peers (addresses or CIDR ranges) whose `X-Forwarded-For` names the client. */
  readonly trustedProxies: ReadonlyArray<string>
  /** Forgejo's `[cors]`: cross-origin requests to the API; off by default. */
  readonly cors: CorsSettings
  /** When set, `GET /metrics` serves Prometheus metrics to `Authorization: Bearer <token>`; otherwise it does not exist. */
  readonly metricsToken: Option.Option<Redacted.Redacted<string>>
  /** KILN_WEBHOOK_*: delivery timeout, retries, history and allowed targets (durations in milliseconds). */
  readonly webhook: WebhookSettingsShape
  /** KILN_SSH_*: the built-in SSH server and the `ssh_url` of repositories. */
  readonly ssh: SshSettings
  /** KILN_LFS_*: the Git LFS API. */
  readonly lfs: LfsSettingsShape
}

export interface SshSettings {
  /** Listen port; 0: no built-in SSH server. */
  readonly port: number
  readonly host: string
  /** Host in `ssh_url`. */
  readonly domain: string
  /** Port in `ssh_url` (22 gives the short `user@host:owner/repo.git` form). */
  readonly externalPort: number
  /** User in `ssh_url`. */
  readonly user: string
  /** Host key files given by the operator; none: Ed25519 and RSA keys generated into the data directory. */
  readonly hostKeys: ReadonlyArray<string>
  /** Connections not yet signed in, overall and from one address; more are closed at once. */
  readonly maxUnauthenticated: number
  readonly maxUnauthenticatedPerAddress: number
  /** Seconds a connection has to sign in. */
  readonly authTimeoutSeconds: number
}

export interface CorsSettings {
  readonly enabled: boolean
  /** Origins allowed (`*` for any; `*` inside a name matches a part of it). */
  readonly allowOrigins: ReadonlyArray<string>
  readonly methods: ReadonlyArray<string>
  /** Request headers allowed besides `Authorization` and the OTP headers. */
  readonly headers: ReadonlyArray<string>
  /** Seconds a browser may keep a preflight's answer. */
  readonly maxAge: number
  readonly allowCredentials: boolean
}

export class KilnConfig extends Context.Service<KilnConfig, KilnSettings>()("@kiln/server/KilnConfig") {}

/** The configuration failed validation; `problems` has one line per bad value. */
export class InvalidConfiguration extends Error {
  readonly problems: ReadonlyArray<string>
  constructor(problems: ReadonlyArray<string>) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`)
    this.problems = problems
  }
}

const MiB = 1024 * 1024

const list = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item !== "")

const requestsPerHour = (name: string, fallback: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), name).pipe(Config.withDefault(fallback))

/** A trusted proxy as a network: a bare address is a network of one. */
export const proxyNetwork = (text: string): Result.Result<IpNetwork.IpNetwork, unknown> =>
  IpNetwork.fromString(text.includes("/") ? text : `${text}/${text.includes(":") ? 128 : 32}`)

/** A whole number of things (or bytes), at least one. */
const positiveCount = (name: string, fallback: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), name).pipe(Config.withDefault(fallback))

const byteCount = positiveCount

/** A whole number of things (or bytes), zero allowed. */
const count = (name: string, fallback: number) =>
  Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), name).pipe(Config.withDefault(fallback))

/** Seconds (fractions allowed) as milliseconds. */
const seconds = (name: string, fallback: number) =>
  Config.schema(Schema.Finite.check(Schema.isGreaterThan(0)), name).pipe(
    Config.withDefault(fallback),
    Config.map((value) => Math.round(value * 1000))
  )

/** Reads one setting; on failure records the problem and yields undefined. */
const readEach = Effect.fnUntraced(function*<A>(
  problems: Array<string>,
  name: string,
  config: Config.Config<A>
) {
  const result = yield* Effect.result(config)
  if (Result.isSuccess(result)) return result.success
  problems.push(`${name}: ${describeConfigError(result.failure)}`)
  return undefined
})

const describeConfigError = (error: unknown): string => {
  const text = error instanceof Error ? error.message : String(error)
  return text.split("\n").map((line) => line.trim()).filter((line) => line.length > 0).join(" ")
}

const normaliseRootUrl = (raw: string): Result.Result<string, string> => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Result.fail(`not an absolute URL: ${raw}`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return Result.fail(`must be an http(s) URL: ${raw}`)
  const text = url.toString()
  return Result.succeed(text.endsWith("/") ? text : `${text}/`)
}

export const loadSettings: Effect.Effect<KilnSettings, InvalidConfiguration> = Effect.gen(function*() {
  const problems: Array<string> = []
  const httpHost = yield* readEach(problems, "KILN_HTTP_HOST", Config.String("KILN_HTTP_HOST").pipe(Config.withDefault("0.0.0.0")))
  const httpPort = yield* readEach(problems, "KILN_HTTP_PORT", Config.Port("KILN_HTTP_PORT").pipe(Config.withDefault(3000)))
  const rootRaw = yield* readEach(problems, "KILN_ROOT_URL", Config.option(Config.String("KILN_ROOT_URL")))
  const dataDir = yield* readEach(problems, "KILN_DATA_DIR", Config.String("KILN_DATA_DIR").pipe(Config.withDefault("./data")))
  const databaseUrl = yield* readEach(problems, "DATABASE_URL", Config.option(Config.Redacted("DATABASE_URL")))
  const adminUsername = yield* readEach(problems, "KILN_ADMIN_USERNAME", Config.option(Config.String("KILN_ADMIN_USERNAME")))
  const adminPassword = yield* readEach(problems, "KILN_ADMIN_PASSWORD", Config.option(Config.Redacted("KILN_ADMIN_PASSWORD")))
  const adminEmail = yield* readEach(problems, "KILN_ADMIN_EMAIL", Config.option(Config.String("KILN_ADMIN_EMAIL")))
  const maxBodySize = yield* readEach(problems, "KILN_HTTP_MAX_BODY_SIZE", byteCount("KILN_HTTP_MAX_BODY_SIZE", 4 * MiB))
  const httpIdleTimeoutSeconds = yield* readEach(problems, "KILN_HTTP_IDLE_TIMEOUT", count("KILN_HTTP_IDLE_TIMEOUT", 60))
  const gitIdleTimeoutSeconds = yield* readEach(problems, "KILN_GIT_IDLE_TIMEOUT", count("KILN_GIT_IDLE_TIMEOUT", 120))
  const gitMaxProcesses = yield* readEach(problems, "KILN_GIT_MAX_PROCESSES", positiveCount("KILN_GIT_MAX_PROCESSES", defaultMaxGitProcesses()))
  const signInMaxFailuresPerAccount = yield* readEach(problems, "KILN_SIGNIN_MAX_FAILURES_PER_ACCOUNT", count("KILN_SIGNIN_MAX_FAILURES_PER_ACCOUNT", 10))
  const signInMaxFailuresPerAddress = yield* readEach(problems, "KILN_SIGNIN_MAX_FAILURES_PER_ADDRESS", count("KILN_SIGNIN_MAX_FAILURES_PER_ADDRESS", 100))
  const signInFailureWindowSeconds = yield* readEach(problems, "KILN_SIGNIN_FAILURE_WINDOW", positiveCount("KILN_SIGNIN_FAILURE_WINDOW", 900))
  const passwordHashMaxConcurrent = yield* readEach(problems, "KILN_PASSWORD_HASH_MAX_CONCURRENT", positiveCount("KILN_PASSWORD_HASH_MAX_CONCURRENT", 2))
  const markdownMaxSize = yield* readEach(problems, "KILN_MARKDOWN_MAX_SIZE", byteCount("KILN_MARKDOWN_MAX_SIZE", MiB))
  const markdownMaxQueue = yield* readEach(problems, "KILN_MARKDOWN_MAX_QUEUE", count("KILN_MARKDOWN_MAX_QUEUE", 64))
  const attachmentMaxSize = yield* readEach(problems, "KILN_ATTACHMENT_MAX_SIZE", byteCount("KILN_ATTACHMENT_MAX_SIZE", 100 * MiB))
  const signingRaw = yield* readEach(problems, "KILN_SIGNING_KEY", Config.String("KILN_SIGNING_KEY").pipe(Config.withDefault("generate")))
  const signingName = yield* readEach(problems, "KILN_SIGNING_NAME", Config.String("KILN_SIGNING_NAME").pipe(Config.withDefault("Kiln")))
  const signingEmail = yield* readEach(problems, "KILN_SIGNING_EMAIL", Config.option(Config.String("KILN_SIGNING_EMAIL")))
  const signingKeyPassphrase = yield* readEach(problems, "KILN_SIGNING_KEY_PASSPHRASE", Config.option(Config.Redacted("KILN_SIGNING_KEY_PASSPHRASE")))
  const quotaDefaultGroups = yield* readEach(problems, "KILN_QUOTA_DEFAULT_GROUPS", Config.String("KILN_QUOTA_DEFAULT_GROUPS").pipe(Config.withDefault("")))
  const quotaEnforce = yield* readEach(problems, "KILN_QUOTA_ENFORCE", Config.Boolean("KILN_QUOTA_ENFORCE").pipe(Config.withDefault(false)))
  const migrationsAllowLocal = yield* readEach(problems, "KILN_MIGRATIONS_ALLOW_LOCAL", Config.Boolean("KILN_MIGRATIONS_ALLOW_LOCAL").pipe(Config.withDefault(false)))
  const migrationsAllowedDomains = yield* readEach(problems, "KILN_MIGRATIONS_ALLOWED_DOMAINS", Config.String("KILN_MIGRATIONS_ALLOWED_DOMAINS").pipe(Config.withDefault("")))
  const migrationsAllowLocalPaths = yield* readEach(problems, "KILN_MIGRATIONS_ALLOW_LOCAL_PATHS", Config.Boolean("KILN_MIGRATIONS_ALLOW_LOCAL_PATHS").pipe(Config.withDefault(false)))
  const accessLog = yield* readEach(problems, "KILN_ACCESS_LOG", Config.Boolean("KILN_ACCESS_LOG").pipe(Config.withDefault(true)))
  const migrationsMaxSize = yield* readEach(problems, "KILN_MIGRATIONS_MAX_SIZE", byteCount("KILN_MIGRATIONS_MAX_SIZE", 2048 * MiB))
  const archiveCacheMaxSize = yield* readEach(problems, "KILN_ARCHIVE_CACHE_MAX_SIZE", byteCount("KILN_ARCHIVE_CACHE_MAX_SIZE", 1024 * MiB))
  const archiveMaxConcurrent = yield* readEach(problems, "KILN_ARCHIVE_MAX_CONCURRENT", positiveCount("KILN_ARCHIVE_MAX_CONCURRENT", 2))
  const gitPackCacheMaxSize = yield* readEach(problems, "KILN_GIT_PACK_CACHE_MAX_SIZE", count("KILN_GIT_PACK_CACHE_MAX_SIZE", 256 * MiB))
  const shutdownTimeout = yield* readEach(
    problems,
    "KILN_SHUTDOWN_TIMEOUT",
    Config.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 86_400 })), "KILN_SHUTDOWN_TIMEOUT").pipe(Config.withDefault(30))
  )
  const rateLimitAuthenticated = yield* readEach(problems, "KILN_RATE_LIMIT_AUTHENTICATED", requestsPerHour("KILN_RATE_LIMIT_AUTHENTICATED", 0))
  const rateLimitAnonymous = yield* readEach(problems, "KILN_RATE_LIMIT_ANONYMOUS", requestsPerHour("KILN_RATE_LIMIT_ANONYMOUS", 3600))
  const rateLimitSearch = yield* readEach(problems, "KILN_RATE_LIMIT_SEARCH", requestsPerHour("KILN_RATE_LIMIT_SEARCH", 600))
  const rateLimitAdmins = yield* readEach(problems, "KILN_RATE_LIMIT_ADMINS", Config.Boolean("KILN_RATE_LIMIT_ADMINS").pipe(Config.withDefault(false)))
  const trustedProxiesRaw = yield* readEach(problems, "KILN_TRUSTED_PROXIES", Config.String("KILN_TRUSTED_PROXIES").pipe(Config.withDefault("")))
  const corsEnabled = yield* readEach(problems, "KILN_CORS_ENABLED", Config.Boolean("KILN_CORS_ENABLED").pipe(Config.withDefault(false)))
  const corsOrigins = yield* readEach(problems, "KILN_CORS_ALLOW_ORIGINS", Config.String("KILN_CORS_ALLOW_ORIGINS").pipe(Config.withDefault("*")))
  const corsMethods = yield* readEach(problems, "KILN_CORS_METHODS", Config.String("KILN_CORS_METHODS").pipe(Config.withDefault("GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS")))
  const corsHeaders = yield* readEach(problems, "KILN_CORS_HEADERS", Config.String("KILN_CORS_HEADERS").pipe(Config.withDefault("Content-Type,User-Agent")))
  const corsMaxAge = yield* readEach(problems, "KILN_CORS_MAX_AGE", requestsPerHour("KILN_CORS_MAX_AGE", 600))
  const corsAllowCredentials = yield* readEach(problems, "KILN_CORS_ALLOW_CREDENTIALS", Config.Boolean("KILN_CORS_ALLOW_CREDENTIALS").pipe(Config.withDefault(false)))
  const trustedProxies = list(trustedProxiesRaw ?? "")
  for (const proxy of trustedProxies) {
    if (Result.isFailure(proxyNetwork(proxy))) problems.push(`KILN_TRUSTED_PROXIES: not an IP address or CIDR range: ${proxy}`)
  }
  const metricsToken = yield* readEach(problems, "KILN_METRICS_TOKEN", Config.option(Config.Redacted("KILN_METRICS_TOKEN")))
  if (metricsToken !== undefined && Option.isSome(metricsToken) && Redacted.value(metricsToken.value).trim() === "") {
    problems.push("KILN_METRICS_TOKEN: must not be empty (leave it unset to turn /metrics off)")
  }
  const sshPort = yield* readEach(problems, "KILN_SSH_PORT", count("KILN_SSH_PORT", 2222))
  if (sshPort !== undefined && sshPort > 65_535) problems.push(`KILN_SSH_PORT: not a port: ${sshPort}`)
  const sshHost = yield* readEach(problems, "KILN_SSH_HOST", Config.option(Config.String("KILN_SSH_HOST")))
  const sshDomain = yield* readEach(problems, "KILN_SSH_DOMAIN", Config.option(Config.String("KILN_SSH_DOMAIN")))
  const sshExternalPort = yield* readEach(problems, "KILN_SSH_EXTERNAL_PORT", Config.option(Config.Port("KILN_SSH_EXTERNAL_PORT")))
  const sshUser = yield* readEach(problems, "KILN_SSH_USER", Config.String("KILN_SSH_USER").pipe(Config.withDefault("git")))
  const sshHostKeys = yield* readEach(problems, "KILN_SSH_HOST_KEYS", Config.String("KILN_SSH_HOST_KEYS").pipe(Config.withDefault("")))
  const sshMaxUnauthenticated = yield* readEach(problems, "KILN_SSH_MAX_UNAUTHENTICATED", positiveCount("KILN_SSH_MAX_UNAUTHENTICATED", 64))
  const sshMaxUnauthenticatedPerAddress = yield* readEach(
    problems,
    "KILN_SSH_MAX_UNAUTHENTICATED_PER_ADDRESS",
    positiveCount("KILN_SSH_MAX_UNAUTHENTICATED_PER_ADDRESS", 8)
  )
  const sshAuthTimeout = yield* readEach(problems, "KILN_SSH_AUTH_TIMEOUT", positiveCount("KILN_SSH_AUTH_TIMEOUT", 30))
  const webhookTimeout = yield* readEach(problems, "KILN_WEBHOOK_DELIVER_TIMEOUT", seconds("KILN_WEBHOOK_DELIVER_TIMEOUT", 5))
  const webhookRetryDelay = yield* readEach(problems, "KILN_WEBHOOK_RETRY_DELAY", seconds("KILN_WEBHOOK_RETRY_DELAY", 10))
  const webhookMaxAttempts = yield* readEach(problems, "KILN_WEBHOOK_MAX_ATTEMPTS", byteCount("KILN_WEBHOOK_MAX_ATTEMPTS", 8))
  const webhookHistoryDays = yield* readEach(
    problems,
    "KILN_WEBHOOK_HISTORY_DAYS",
    Config.schema(Schema.Finite.check(Schema.isGreaterThan(0)), "KILN_WEBHOOK_HISTORY_DAYS").pipe(Config.withDefault(7))
  )
  const webhookAllowedHosts = yield* readEach(
    problems,
    "KILN_WEBHOOK_ALLOWED_HOSTS",
    Config.String("KILN_WEBHOOK_ALLOWED_HOSTS").pipe(Config.withDefault(DEFAULT_ALLOWED_HOSTS))
  )
  const lfsEnabled = yield* readEach(problems, "KILN_LFS_ENABLED", Config.Boolean("KILN_LFS_ENABLED").pipe(Config.withDefault(true)))
  const lfsMaxFileSize = yield* readEach(problems, "KILN_LFS_MAX_FILE_SIZE", count("KILN_LFS_MAX_FILE_SIZE", 0))
  const lfsMaxBatchSize = yield* readEach(problems, "KILN_LFS_MAX_BATCH_SIZE", count("KILN_LFS_MAX_BATCH_SIZE", 0))
  const lfsLocksPageSize = yield* readEach(problems, "KILN_LFS_LOCKS_PAGE_SIZE", positiveCount("KILN_LFS_LOCKS_PAGE_SIZE", 50))
  const lfsCollectionGrace = yield* readEach(problems, "KILN_LFS_COLLECTION_GRACE", seconds("KILN_LFS_COLLECTION_GRACE", 24 * 60 * 60))

  // Patterns are matched against every request's origin or every target host: bounded in length.
  const patternLists = [
    ["KILN_WEBHOOK_ALLOWED_HOSTS", webhookAllowedHosts],
    ["KILN_MIGRATIONS_ALLOWED_DOMAINS", migrationsAllowedDomains],
    ["KILN_CORS_ALLOW_ORIGINS", corsOrigins]
  ] as const
  for (const [name, text] of patternLists) {
    for (const item of list(text ?? "")) {
      const error = globLengthError(item)
      if (error !== undefined) problems.push(`${name}: ${error}: ${item.slice(0, 40)}…`)
    }
  }

  let rootUrl = ""
  if (httpPort !== undefined && rootRaw !== undefined) {
    const resolved = normaliseRootUrl(Option.getOrElse(rootRaw, () => `http://localhost:${httpPort}/`))
    if (Result.isSuccess(resolved)) rootUrl = resolved.success
    else problems.push(`KILN_ROOT_URL: ${resolved.failure}`)
  }

  const adminGiven = [adminUsername, adminPassword, adminEmail]
    .filter((part: Option.Option<unknown> | undefined) => part !== undefined && Option.isSome(part)).length
  if (adminGiven !== 0 && adminGiven !== 3) {
    problems.push("KILN_ADMIN_USERNAME, KILN_ADMIN_PASSWORD and KILN_ADMIN_EMAIL must be given together")
  }

  if (
    problems.length > 0 || httpHost === undefined || httpPort === undefined || dataDir === undefined ||
    databaseUrl === undefined || adminUsername === undefined || adminPassword === undefined ||
    adminEmail === undefined || maxBodySize === undefined || httpIdleTimeoutSeconds === undefined || gitIdleTimeoutSeconds === undefined || gitMaxProcesses === undefined ||
    signInMaxFailuresPerAccount === undefined || signInMaxFailuresPerAddress === undefined ||
    signInFailureWindowSeconds === undefined || passwordHashMaxConcurrent === undefined || markdownMaxSize === undefined || markdownMaxQueue === undefined ||
    attachmentMaxSize === undefined || signingRaw === undefined || signingName === undefined ||
    signingEmail === undefined || signingKeyPassphrase === undefined || quotaDefaultGroups === undefined || quotaEnforce === undefined ||
    migrationsAllowLocal === undefined || migrationsAllowedDomains === undefined || migrationsAllowLocalPaths === undefined ||
    migrationsMaxSize === undefined || accessLog === undefined || archiveCacheMaxSize === undefined || archiveMaxConcurrent === undefined ||
    gitPackCacheMaxSize === undefined ||
    shutdownTimeout === undefined ||
    rateLimitAuthenticated === undefined || rateLimitAnonymous === undefined || rateLimitSearch === undefined ||
    rateLimitAdmins === undefined || corsEnabled === undefined || corsOrigins === undefined || corsMethods === undefined ||
    corsHeaders === undefined || corsMaxAge === undefined || corsAllowCredentials === undefined ||
    metricsToken === undefined ||
    webhookTimeout === undefined || webhookRetryDelay === undefined || webhookMaxAttempts === undefined ||
    webhookHistoryDays === undefined || webhookAllowedHosts === undefined ||
    sshPort === undefined || sshHost === undefined || sshDomain === undefined || sshExternalPort === undefined ||
    sshUser === undefined || sshHostKeys === undefined || sshMaxUnauthenticated === undefined ||
    sshMaxUnauthenticatedPerAddress === undefined || sshAuthTimeout === undefined ||
    lfsEnabled === undefined || lfsMaxFileSize === undefined || lfsMaxBatchSize === undefined || lfsLocksPageSize === undefined ||
    lfsCollectionGrace === undefined
  ) {
    return yield* Effect.fail(new InvalidConfiguration(problems))
  }

  const admin = Option.isSome(adminUsername) && Option.isSome(adminPassword) && Option.isSome(adminEmail)
    ? Option.some({ username: adminUsername.value, password: adminPassword.value, email: adminEmail.value })
    : Option.none()

  return {
    httpHost,
    httpPort,
    rootUrl,
    dataDir,
    databaseUrl,
    admin,
    maxBodySize,
    httpIdleTimeoutSeconds,
    gitIdleTimeoutSeconds,
    gitMaxProcesses,
    signInMaxFailuresPerAccount,
    signInMaxFailuresPerAddress,
    signInFailureWindowSeconds,
    passwordHashMaxConcurrent,
    markdownMaxSize,
    markdownMaxQueue,
    attachmentMaxSize,
    signingKey: signingRaw === "generate" || signingRaw === "none" ? signingRaw : { path: signingRaw },
    signingName,
    signingEmail: Option.getOrElse(signingEmail, () => `noreply@${new URL(rootUrl).hostname}`),
    signingKeyPassphrase,
    quotaDefaultGroups: quotaDefaultGroups.split(",").map((name) => name.trim()).filter((name) => name !== ""),
    quotaEnforce,
    migrationsAllowLocal,
    migrationsAllowedDomains: migrationsAllowedDomains.split(",").map((name) => name.trim()).filter((name) => name !== ""),
    migrationsAllowLocalPaths,
    migrationsMaxSize,
    archiveCacheMaxSize,
    archiveMaxConcurrent,
    gitPackCacheMaxSize,
    accessLog,
    shutdownTimeout,
    rateLimitAuthenticated,
    rateLimitAnonymous,
    rateLimitSearch,
    rateLimitAdmins,
    trustedProxies,
    cors: {
      enabled: corsEnabled,
      allowOrigins: list(corsOrigins),
      methods: list(corsMethods).map((method) => method.toUpperCase()),
      headers: list(corsHeaders),
      maxAge: corsMaxAge,
      allowCredentials: corsAllowCredentials
    },
    metricsToken,
    webhook: {
      deliverTimeout: webhookTimeout,
      retryDelay: webhookRetryDelay,
      maxAttempts: webhookMaxAttempts,
      historyDays: webhookHistoryDays,
      // Forgejo's empty list means the default.
      allowedHosts: webhookAllowedHosts.trim() === "" ? DEFAULT_ALLOWED_HOSTS : webhookAllowedHosts
    },
    ssh: {
      port: sshPort,
      host: Option.getOrElse(sshHost, () => httpHost),
      domain: Option.getOrElse(sshDomain, () => new URL(rootUrl).hostname),
      // Without a server of its own, Kiln's clone addresses name the standard port (the system's sshd).
      externalPort: Option.getOrElse(sshExternalPort, () => sshPort === 0 ? 22 : sshPort),
      user: sshUser,
      hostKeys: list(sshHostKeys),
      maxUnauthenticated: sshMaxUnauthenticated,
      maxUnauthenticatedPerAddress: sshMaxUnauthenticatedPerAddress,
      authTimeoutSeconds: sshAuthTimeout
    },
    lfs: {
      enabled: lfsEnabled,
      maxFileSize: lfsMaxFileSize,
      maxBatchSize: lfsMaxBatchSize,
      locksPageSize: lfsLocksPageSize,
      collectionGraceMillis: lfsCollectionGrace
    }
  }
})

/** Settings from the process environment. */
export const layer: Layer.Layer<KilnConfig, InvalidConfiguration> = Layer.effect(KilnConfig, loadSettings)

/**
 * Settings from a value, for a service that embeds Kiln: what `overrides` leaves out takes the
 * default it has when its environment variable is unset. Nothing is read from the environment.
 */
export const makeSettings = (
  overrides: Partial<KilnSettings> & { readonly rootUrl: string; readonly dataDir: string }
): Effect.Effect<KilnSettings, InvalidConfiguration> =>
  Effect.gen(function*() {
    const rootUrl = normaliseRootUrl(overrides.rootUrl)
    if (Result.isFailure(rootUrl)) return yield* Effect.fail(new InvalidConfiguration([`rootUrl: ${rootUrl.failure}`]))
    const defaults = yield* loadSettings.pipe(
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({ KILN_ROOT_URL: rootUrl.success }))
    )
    return { ...defaults, ...overrides, rootUrl: rootUrl.success }
  })
