import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { InvalidConfiguration, loadSettings, makeSettings } from "../../src/config/KilnConfig.ts"

const load = (env: Record<string, string>) =>
  loadSettings.pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))

describe("KilnConfig", () => {
  it.effect("reads KILN_SSH_*: the built-in server on 2222 by default, ssh_url's host and port from the root URL and the listen port", () =>
    Effect.gen(function*() {
      const defaults = (yield* load({ KILN_ROOT_URL: "https://git.example.com/", KILN_HTTP_HOST: "10.0.0.1" })).ssh
      assert.deepStrictEqual(defaults, {
        port: 2222,
        host: "10.0.0.1",
        domain: "git.example.com",
        externalPort: 2222,
        user: "git",
        hostKeys: [],
        maxUnauthenticated: 64,
        maxUnauthenticatedPerAddress: 8,
        authTimeoutSeconds: 30
      })
      // Without a server of its own, clone addresses name the system's sshd.
      assert.strictEqual((yield* load({ KILN_SSH_PORT: "0" })).ssh.externalPort, 22)
      const given = (yield* load({
        KILN_SSH_PORT: "22022",
        KILN_SSH_HOST: "127.0.0.1",
        KILN_SSH_DOMAIN: "ssh.example.com",
        KILN_SSH_EXTERNAL_PORT: "22",
        KILN_SSH_USER: "forge",
        KILN_SSH_HOST_KEYS: "/etc/kiln/a, /etc/kiln/b"
      })).ssh
      assert.deepStrictEqual([given.port, given.host, given.domain, given.externalPort, given.user, given.hostKeys], [
        22022, "127.0.0.1", "ssh.example.com", 22, "forge", ["/etc/kiln/a", "/etc/kiln/b"]
      ])
      const bad = yield* Effect.flip(load({ KILN_SSH_PORT: "70000", KILN_SSH_AUTH_TIMEOUT: "0" }))
      assert.include(bad.problems.join("\n"), "KILN_SSH_PORT")
      assert.include(bad.problems.join("\n"), "KILN_SSH_AUTH_TIMEOUT")
    }))

  it.effect("reads KILN_METRICS_TOKEN, off when unset, and refuses an empty one", () =>
    Effect.gen(function*() {
      assert.isTrue(Option.isNone((yield* load({})).metricsToken))
      const on = yield* load({ KILN_METRICS_TOKEN: "scrape-me" })
      assert.strictEqual(Option.map(on.metricsToken, Redacted.value).pipe(Option.getOrUndefined), "scrape-me")
      const empty = yield* Effect.flip(load({ KILN_METRICS_TOKEN: " " }))
      assert.instanceOf(empty, InvalidConfiguration)
      assert.include(empty.problems.join("\n"), "KILN_METRICS_TOKEN")
    }))

  it.effect("has Forgejo-like defaults", () =>
    Effect.gen(function*() {
      const settings = yield* load({})
      assert.strictEqual(settings.httpHost, "0.0.0.0")
      assert.strictEqual(settings.httpPort, 3000)
      assert.strictEqual(settings.rootUrl, "http://localhost:3000/")
      assert.strictEqual(settings.dataDir, "./data")
      assert.isTrue(Option.isNone(settings.databaseUrl))
      assert.isTrue(Option.isNone(settings.admin))
      assert.strictEqual(settings.signingKey, "generate")
      assert.strictEqual(settings.signingEmail, "noreply@localhost")
      assert.deepStrictEqual(settings.quotaDefaultGroups, [])
      assert.strictEqual(settings.shutdownTimeout, 30)
    }))

  it.effect("reads every variable, normalising the root URL to end with a slash", () =>
    Effect.gen(function*() {
      const settings = yield* load({
        KILN_HTTP_HOST: "127.0.0.1",
        KILN_HTTP_PORT: "8080",
        KILN_ROOT_URL: "https://git.example.com/forge",
        KILN_DATA_DIR: "/var/lib/kiln",
        DATABASE_URL: "postgres://kiln@db/kiln",
        KILN_ADMIN_USERNAME: "root",
        KILN_ADMIN_PASSWORD: "secret-password",
        KILN_ADMIN_EMAIL: "root@example.com",
        KILN_SIGNING_KEY: "/etc/kiln/key.asc",
        KILN_QUOTA_DEFAULT_GROUPS: "default, small ,",
        KILN_SHUTDOWN_TIMEOUT: "5"
      })
      assert.strictEqual(settings.shutdownTimeout, 5)
      assert.strictEqual(settings.rootUrl, "https://git.example.com/forge/")
      assert.strictEqual(settings.httpPort, 8080)
      assert.deepStrictEqual(settings.signingKey, { path: "/etc/kiln/key.asc" })
      assert.strictEqual(settings.signingEmail, "noreply@git.example.com")
      assert.deepStrictEqual(settings.quotaDefaultGroups, ["default", "small"])
      assert.strictEqual(Option.map(settings.databaseUrl, Redacted.value).pipe(Option.getOrUndefined), "postgres://kiln@db/kiln")
      assert.strictEqual(Option.map(settings.admin, (a) => Redacted.value(a.password)).pipe(Option.getOrUndefined), "secret-password")
    }))

  it.effect("bounds resources by default, and reads the resource settings", () =>
    Effect.gen(function*() {
      const defaults = yield* load({})
      assert.deepStrictEqual(
        [
          defaults.markdownMaxQueue, defaults.archiveMaxConcurrent, defaults.gitPackCacheMaxSize, defaults.httpIdleTimeoutSeconds,
          defaults.gitIdleTimeoutSeconds, defaults.signInMaxFailuresPerAccount, defaults.signInMaxFailuresPerAddress,
          defaults.signInFailureWindowSeconds, defaults.passwordHashMaxConcurrent
        ],
        [64, 2, 256 * 1024 * 1024, 60, 120, 10, 100, 900, 2]
      )
      const set = yield* load({
        KILN_MARKDOWN_MAX_QUEUE: "0",
        KILN_ARCHIVE_MAX_CONCURRENT: "4",
        KILN_GIT_PACK_CACHE_MAX_SIZE: "0",
        KILN_HTTP_IDLE_TIMEOUT: "30",
        KILN_GIT_IDLE_TIMEOUT: "0",
        KILN_SIGNIN_MAX_FAILURES_PER_ACCOUNT: "5",
        KILN_SIGNIN_MAX_FAILURES_PER_ADDRESS: "0",
        KILN_SIGNIN_FAILURE_WINDOW: "60",
        KILN_PASSWORD_HASH_MAX_CONCURRENT: "1"
      })
      assert.deepStrictEqual(
        [
          set.markdownMaxQueue, set.archiveMaxConcurrent, set.gitPackCacheMaxSize, set.httpIdleTimeoutSeconds, set.gitIdleTimeoutSeconds,
          set.signInMaxFailuresPerAccount, set.signInMaxFailuresPerAddress, set.signInFailureWindowSeconds, set.passwordHashMaxConcurrent
        ],
        [0, 4, 0, 30, 0, 5, 0, 60, 1]
      )
      const error = yield* Effect.flip(load({
        KILN_MARKDOWN_MAX_QUEUE: "-1",
        KILN_ARCHIVE_MAX_CONCURRENT: "0",
        KILN_SIGNIN_FAILURE_WINDOW: "0",
        KILN_PASSWORD_HASH_MAX_CONCURRENT: "many",
        KILN_HTTP_IDLE_TIMEOUT: "1.5"
      }))
      assert.deepStrictEqual(
        error.problems.map((problem) => problem.split(":")[0]).sort(),
        ["KILN_ARCHIVE_MAX_CONCURRENT", "KILN_HTTP_IDLE_TIMEOUT", "KILN_MARKDOWN_MAX_QUEUE", "KILN_PASSWORD_HASH_MAX_CONCURRENT", "KILN_SIGNIN_FAILURE_WINDOW"]
      )
    }))

  it.effect("issue 21: rate limits, trusted proxies and CORS, with their defaults and their checks", () =>
    Effect.gen(function*() {
      const defaults = yield* load({})
      assert.strictEqual(defaults.rateLimitAuthenticated, 0)
      assert.strictEqual(defaults.rateLimitAnonymous, 3600)
      assert.strictEqual(defaults.rateLimitSearch, 600)
      assert.isFalse(defaults.rateLimitAdmins)
      assert.deepStrictEqual(defaults.trustedProxies, [])
      assert.isFalse(defaults.cors.enabled)
      assert.deepStrictEqual(defaults.cors.allowOrigins, ["*"])
      assert.deepStrictEqual(defaults.cors.methods, ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
      assert.deepStrictEqual(defaults.cors.headers, ["Content-Type", "User-Agent"])
      const set = yield* load({
        KILN_RATE_LIMIT_AUTHENTICATED: "5000",
        KILN_RATE_LIMIT_ANONYMOUS: "0",
        KILN_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1,::1",
        KILN_CORS_ENABLED: "true",
        KILN_CORS_ALLOW_ORIGINS: "https://a.example.com,https://*.b.example.com",
        KILN_CORS_METHODS: "get,post"
      })
      assert.strictEqual(set.rateLimitAuthenticated, 5000)
      assert.strictEqual(set.rateLimitAnonymous, 0)
      assert.deepStrictEqual(set.trustedProxies, ["10.0.0.0/8", "127.0.0.1", "::1"])
      assert.deepStrictEqual(set.cors.methods, ["GET", "POST"])
      const error = yield* Effect.flip(load({
        KILN_RATE_LIMIT_ANONYMOUS: "-1",
        KILN_TRUSTED_PROXIES: "10.0.0.0/8,not-an-address",
        KILN_CORS_MAX_AGE: "soon"
      }))
      assert.strictEqual(error.problems.length, 3, error.problems.join("\n"))
      assert.isTrue(error.problems.some((line) => line === "KILN_TRUSTED_PROXIES: not an IP address or CIDR range: not-an-address"))
    }))

  it.effect("bounds the length of host, domain and origin patterns (matching costs pattern × name)", () =>
    Effect.gen(function*() {
      const long = `*${"a".repeat(256)}`
      const fine = yield* load({ KILN_WEBHOOK_ALLOWED_HOSTS: `loopback,${"a".repeat(256)}` })
      assert.strictEqual(fine.webhook.allowedHosts, `loopback,${"a".repeat(256)}`)
      const error = yield* Effect.flip(load({
        KILN_WEBHOOK_ALLOWED_HOSTS: `loopback,${long}`,
        KILN_MIGRATIONS_ALLOWED_DOMAINS: long,
        KILN_CORS_ALLOW_ORIGINS: `https://${long}`
      }))
      assert.deepStrictEqual(
        error.problems.map((problem) => problem.split(": ").slice(0, 2).join(": ")),
        [
          "KILN_WEBHOOK_ALLOWED_HOSTS: pattern is longer than 256 characters",
          "KILN_MIGRATIONS_ALLOWED_DOMAINS: pattern is longer than 256 characters",
          "KILN_CORS_ALLOW_ORIGINS: pattern is longer than 256 characters"
        ]
      )
    }))

  it.effect("reports every bad value on its own line", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(load({
        KILN_HTTP_PORT: "not-a-port",
        KILN_ROOT_URL: "ftp://example.com",
        KILN_MARKDOWN_MAX_SIZE: "-5",
        KILN_ADMIN_USERNAME: "root",
        KILN_SHUTDOWN_TIMEOUT: "soon"
      }))
      assert.instanceOf(error, InvalidConfiguration)
      const names = error.problems.map((problem) => problem.split(":")[0])
      assert.includeMembers(names, ["KILN_HTTP_PORT", "KILN_MARKDOWN_MAX_SIZE", "KILN_SHUTDOWN_TIMEOUT"])
      assert.isTrue(error.problems.some((problem) => problem.startsWith("KILN_ADMIN_USERNAME, KILN_ADMIN_PASSWORD and KILN_ADMIN_EMAIL")))
      const rootUrl = yield* Effect.flip(load({ KILN_ROOT_URL: "ftp://example.com" }))
      assert.deepStrictEqual(rootUrl.problems, ["KILN_ROOT_URL: must be an http(s) URL: ftp://example.com"])
    }))

  it.effect("from a value (embedding): the defaults for what it leaves out, the environment never read", () =>
    Effect.gen(function*() {
      const settings = yield* makeSettings({ rootUrl: "https://portal.example.com/git-api", dataDir: "/srv/kiln" }).pipe(
        // Values an embedding must not pick up from its host's environment.
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: { KILN_HTTP_PORT: "9999", KILN_ACCESS_LOG: "false" } }))
      )
      const defaults = yield* load({ KILN_ROOT_URL: "https://portal.example.com/git-api/" })
      assert.deepStrictEqual(settings, { ...defaults, dataDir: "/srv/kiln" })
      assert.strictEqual(settings.rootUrl, "https://portal.example.com/git-api/")
      assert.strictEqual(settings.httpPort, 3000)
      assert.strictEqual(settings.signingEmail, "noreply@portal.example.com")
      const overridden = yield* makeSettings({ rootUrl: "http://a.test/", dataDir: "/d", accessLog: false, maxBodySize: 10 })
      assert.isFalse(overridden.accessLog)
      assert.strictEqual(overridden.maxBodySize, 10)
      const invalid = yield* Effect.flip(makeSettings({ rootUrl: "not a url", dataDir: "/d" }))
      assert.instanceOf(invalid, InvalidConfiguration)
      assert.deepStrictEqual(invalid.problems, ["rootUrl: not an absolute URL: not a url"])
    }))
})
