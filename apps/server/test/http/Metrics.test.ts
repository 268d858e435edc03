/**
 * `GET /metrics`: absent without KILN_METRICS_TOKEN; with it, only for `Bearer <token>`, and the
 * text is Prometheus' format as a Prometheus text parser reads it: requests by route template and
 * status, in-flight requests, git operations, markdown renders, process memory and event-loop
 * delay, and Forgejo's object counts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import parsePrometheusTextFormat from "parse-prometheus-text-format"
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

      assert.strictEqual(sampleValue(text, "kiln_git_operations_total", { operation: "clone", outcome: "success" }), 1)
      assert.strictEqual(sampleValue(text, "kiln_git_operations_total", { operation: "push", outcome: "success" }), 1)
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
})
