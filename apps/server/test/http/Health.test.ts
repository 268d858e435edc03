/** `GET /api/healthz` as Forgejo answers it, and its 503 when the shared storage cannot be written. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { renameSync, watch } from "node:fs"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { at, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

layer(TestServer.layer(), { timeout: "60 seconds" })("health check", (it) => {
  it.effect("passes with application/health+json, and fails with 503 when the data directory cannot be written", () =>
    Effect.gen(function*() {
      const healthy = yield* request("GET", "/api/healthz")
      assert.strictEqual(healthy.status, 200, healthy.text)
      assert.strictEqual(healthy.headers.get("content-type"), "application/health+json")
      assert.strictEqual(at(healthy.body, "status"), "pass")
      assert.strictEqual(at(healthy.body, "description"), "Kiln")
      for (const check of ["database:ping", "storage:write"]) {
        const [status] = at(healthy.body, "checks", check) as ReadonlyArray<Record<string, unknown>>
        assert.strictEqual(status?.["status"], "pass")
        assert.match(String(status?.["time"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
        assert.notProperty(status, "output")
      }

      // The shared volume went away under the process: seen once the last report is a second old.
      const { dataDir } = yield* KilnConfig
      renameSync(dataDir, `${dataDir}.gone`)
      const failing = yield* answerWithin(503).pipe(Effect.ensuring(Effect.sync(() => renameSync(`${dataDir}.gone`, dataDir))))
      assert.strictEqual(failing.status, 503, failing.text)
      assert.strictEqual(at(failing.body, "status"), "fail")
      assert.strictEqual(at(failing.body, "checks", "database:ping", 0, "status"), "pass")
      assert.strictEqual(at(failing.body, "checks", "storage:write", 0, "status"), "fail")
      assert.include(String(at(failing.body, "checks", "storage:write", 0, "output")), "ENOENT")

      assert.strictEqual((yield* answerWithin(200)).status, 200)
    }))

  it.effect("makes one report for a burst of requests: a flood costs one storage probe a second, not one per request", () =>
    Effect.gen(function*() {
      const { dataDir } = yield* KilnConfig
      yield* TestClock.withLive(Effect.sleep("1100 millis"))
      // Each report writes and removes a file of its own in the data directory.
      const probes = new Set<string>()
      const watcher = watch(dataDir, (_, name) => {
        if (name !== null && name.startsWith(".healthz-")) probes.add(name)
      })
      const answers = yield* Effect.all(Array.from({ length: 40 }, () => request("GET", "/api/healthz")), { concurrency: "unbounded" })
        .pipe(Effect.ensuring(Effect.sync(() => watcher.close())))
      assert.isTrue(answers.every((answer) => answer.status === 200))
      assert.isAtLeast(probes.size, 1)
      assert.isAtMost(probes.size, 3, `${probes.size} probes for 40 requests`)
    }))
})

/** The health check's answer once it is `status` (a report is reused for a second); the last answer after 10 s. */
const answerWithin = (status: number) =>
  TestClock.withLive(Effect.gen(function*() {
    let answer = yield* request("GET", "/api/healthz")
    for (let attempt = 0; attempt < 100 && answer.status !== status; attempt++) {
      yield* Effect.sleep("100 millis")
      answer = yield* request("GET", "/api/healthz")
    }
    return answer
  }))
