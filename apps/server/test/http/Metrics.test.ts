/**
 * `GET /metrics`: absent without KILN_METRICS_TOKEN; with it, only for `Bearer <token>`, and the
 * text is Prometheus' format as a Prometheus text parser reads it: requests by route template and
 * status, in-flight requests, git operations, markdown renders, process memory and event-loop
 * delay, Forgejo's object counts, the database's statements and pool, and webhook deliveries.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import parsePrometheusTextFormat from "parse-prometheus-text-format"
import { makeHookReceiver } from "../support/HookReceiver.ts"
import { baseUrl, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { cloneUrl, makeGitClient } from "./GitClient.ts"

const TOKEN = "metrics-token-for-tests"

const families = (text: string) => new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]))

const sampleValue = (text: string, name: string, labels: Readonly<Record<string, string>> = {}) => {
  const family = families(text).get(name)
  const sample = family?.metrics.find((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value))
  return sample === undefined ? undefined : Number(sample.value ?? sample.count)
}

layer(TestServer.layer(), { timeout: "60 seconds" })("/metrics without a token", (it) => {
  it.effect("does not exist", () =>
    Effect.gen(function*() {
      const response = yield* request("GET", "/metrics", { auth: { bearer: TOKEN } })
      assert.strictEqual(response.status, 404)
    }))
})

const scrape = Effect.map(request("GET", "/metrics", { auth: { bearer: TOKEN } }), (response) => {
  assert.strictEqual(response.status, 200, response.text)
  return response.text
})

/** A histogram's count for one label set, read from the text (the parser keeps no histogram labels). */
const histogramCount = (text: string, name: string, labels: string) => {
  const match = new RegExp(`^${name}_count${labels.replace(/[{}]/g, "\\$&")} (\\d+)$`, "m").exec(text)
  return match?.[1] === undefined ? 0 : Number(match[1])
}

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

layer(TestServer.layer({ metricsToken: Option.some(Redacted.make(TOKEN)) }), { timeout: "120 seconds" })("/metrics", (it) => {
  it.effect("answers 401 without the token or with another", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* request("GET", "/metrics")).status, 401)
      assert.strictEqual((yield* request("GET", "/metrics", { auth: { bearer: "wrong" } })).status, 401)
      assert.strictEqual((yield* request("GET", "/metrics", { auth: { token: TOKEN } })).status, 401)
    }))

  it.effect("serves request, git, markdown, process and object-count metrics a Prometheus parser reads", () =>
    Effect.scoped(Effect.gen(function*() {
      const alice = yield* createUser("metrics-alice")
      yield* request("POST", "/api/v1/orgs", { auth: alice.auth, json: { username: "metrics-org" } })
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "measured", auto_init: true } })).status, 201)
      for (let i = 0; i < 3; i++) assert.strictEqual((yield* request("GET", "/api/v1/users/metrics-alice")).status, 200)
      assert.strictEqual((yield* request("GET", "/api/v1/users/nobody-here")).status, 404)
      assert.strictEqual((yield* request("POST", "/api/v1/markdown", { auth: alice.auth, json: { text: "# hi" } })).status, 200)

      const client = yield* makeGitClient
      const url = cloneUrl(yield* baseUrl, "metrics-alice", "measured", { username: "metrics-alice", password: alice.password })
      const work = client.path("work")
      yield* client.git(["clone", "-q", url, work])
      yield* client.commit(work, { "a.txt": "a\n" }, "more")
      yield* client.git(["push", "-q", "origin", "HEAD"], { cwd: work })

      const response = yield* request("GET", "/metrics", { auth: { bearer: TOKEN } })
      assert.strictEqual(response.status, 200, response.text)
      assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/)
      const text = response.text
      const parsed = families(text)

      const route = "/api/v1/users/:username"
      assert.strictEqual(sampleValue(text, "kiln_http_requests_total", { method: "GET", route, status: "200" }), 3)
      assert.strictEqual(sampleValue(text, "kiln_http_requests_total", { method: "GET", route, status: "404" }), 1)
      assert.strictEqual(parsed.get("kiln_http_request_duration_seconds")?.type, "HISTOGRAM")
      // The parser keeps no labels of a histogram's samples: its counts are read from the text.
      assert.include(text, `kiln_http_request_duration_seconds_count{method="GET",route="${route}",status="200"} 3\n`)
      // No label carries a concrete path.
      for (const sample of parsed.get("kiln_http_requests_total")?.metrics ?? []) assert.notInclude(sample.labels?.["route"] ?? "", "metrics-alice")
      // The scrape itself is under way.
      assert.strictEqual(sampleValue(text, "kiln_http_requests_in_flight"), 1)

      assert.strictEqual(sampleValue(text, "kiln_git_operations_total", { operation: "clone", outcome: "success", transport: "http" }), 1)
      assert.strictEqual(sampleValue(text, "kiln_git_operations_total", { operation: "push", outcome: "success", transport: "http" }), 1)
      assert.strictEqual(parsed.get("kiln_git_operation_duration_seconds")?.type, "HISTOGRAM")
      assert.include(text, `kiln_git_operation_duration_seconds_count{operation="push"} 1\n`)
      assert.strictEqual(sampleValue(text, "kiln_markdown_renders_in_progress"), 0)

      assert.isAbove(sampleValue(text, "kiln_process_resident_memory_bytes") ?? 0, 0)
      assert.isDefined(parsed.get("kiln_nodejs_eventloop_lag_p99_seconds"))

      // The administrator and alice; one organization; one repository.
      assert.strictEqual(sampleValue(text, "gitea_users"), 2)
      assert.strictEqual(sampleValue(text, "gitea_organizations"), 1)
      assert.strictEqual(sampleValue(text, "gitea_repositories"), 1)
      assert.strictEqual(sampleValue(text, "gitea_releases"), 0)
      assert.strictEqual(sampleValue(text, "gitea_build_info", { version: "0.1.0" }), 1)
    })))

  it.effect("times SQL statements by kind and shows the pool's use", () =>
    Effect.gen(function*() {
      const before = yield* scrape
      yield* createUser("metrics-bob")
      for (let i = 0; i < 5; i++) assert.strictEqual((yield* request("GET", "/api/v1/users/metrics-bob")).status, 200)
      const after = yield* scrape
      const parsed = families(after)

      assert.strictEqual(parsed.get("kiln_db_statement_duration_seconds")?.type, "HISTOGRAM")
      const selects = (text: string) => histogramCount(text, "kiln_db_statement_duration_seconds", `{kind="select"}`)
      const inserts = (text: string) => histogramCount(text, "kiln_db_statement_duration_seconds", `{kind="insert"}`)
      assert.isAtLeast(selects(after) - selects(before), 5)
      assert.isAtLeast(inserts(after) - inserts(before), 1)
      // No request here makes the database refuse a statement (the stores check first); the family is there.
      assert.strictEqual(parsed.get("kiln_db_statement_failures_total")?.type, "COUNTER")
      assert.isAbove(histogramCount(after, "kiln_db_connection_wait_seconds", ""), 0)

      const server = process.env["KILN_TEST_DATABASE_URL"] !== undefined
      assert.strictEqual(sampleValue(after, "kiln_db_pool_max_connections"), server ? 10 : 1)
      for (const name of ["kiln_db_statements_waiting", "kiln_db_statements_running", "kiln_db_transactions_open"]) {
        const value = sampleValue(after, name)
        assert.isDefined(value, name)
        assert.isAtLeast(value ?? -1, 0, name)
        assert.isAtMost(value ?? Infinity, 50, name)
      }
      if (server) {
        assert.isUndefined(parsed.get("kiln_db_embedded_connections"))
      } else {
        assert.strictEqual(sampleValue(after, "kiln_db_embedded_connections"), 1)
        assert.include([0, 1], sampleValue(after, "kiln_db_embedded_session_busy"))
      }
    }))

  it.effect("shows webhook deliveries queued while a receiver does not answer, and the attempts' outcomes", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      // The test server gives up on an answer after 2 s and retries after 200 ms, then 400 ms.
      receiver.answers.push("hang", 500)
      const carol = yield* createUser("metrics-carol")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: carol.auth, json: { name: "hooked", auto_init: true } })
      assert.strictEqual(created.status, 201, created.text)
      const hooks = "/api/v1/repos/metrics-carol/hooked/hooks"
      const hook = yield* request("POST", hooks, {
        auth: carol.auth,
        json: { type: "forgejo", active: true, config: { url: receiver.url, content_type: "json" } }
      })
      assert.strictEqual(hook.status, 201, hook.text)
      const before = yield* scrape
      const id = Number((hook.body as { readonly id: unknown }).id)
      assert.strictEqual((yield* request("POST", `${hooks}/${id}/tests`, { auth: carol.auth })).status, 204)

      // The first attempt hangs: the delivery stays queued meanwhile.
      yield* receiver.waitFor(1)
      const queued = yield* scrape
      assert.strictEqual(sampleValue(queued, "kiln_webhook_deliveries_queued", { state: "due" }), 1)

      yield* receiver.waitFor(3, 30_000)
      let text = yield* scrape
      for (let tries = 0; tries < 100 && sampleValue(text, "kiln_webhook_delivery_attempts_total", { outcome: "success" }) !== 1; tries++) {
        yield* sleep(50)
        text = yield* scrape
      }
      const outcome = (name: string) =>
        (sampleValue(text, "kiln_webhook_delivery_attempts_total", { outcome: name }) ?? 0) -
        (sampleValue(before, "kiln_webhook_delivery_attempts_total", { outcome: name }) ?? 0)
      assert.strictEqual(outcome("timeout"), 1)
      assert.strictEqual(outcome("status_5xx"), 1)
      assert.strictEqual(outcome("success"), 1)
      assert.strictEqual(families(text).get("kiln_webhook_delivery_duration_seconds")?.type, "HISTOGRAM")
      assert.strictEqual(histogramCount(text, "kiln_webhook_delivery_duration_seconds", `{outcome="timeout"}`), 1)
      for (let tries = 0; tries < 100 && sampleValue(text, "kiln_webhook_deliveries_queued", { state: "due" }) !== 0; tries++) {
        yield* sleep(50)
        text = yield* scrape
      }
      assert.strictEqual(sampleValue(text, "kiln_webhook_deliveries_queued", { state: "due" }), 0)
      assert.strictEqual(sampleValue(text, "kiln_webhook_deliveries_queued", { state: "scheduled" }), 0)
    })))
})
