/** `GET /api/healthz` as Forgejo answers it, and its 503 when the shared storage cannot be written. */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { renameSync } from "node:fs"
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

      // The shared volume went away under the process.
      const { dataDir } = yield* KilnConfig
      renameSync(dataDir, `${dataDir}.gone`)
      const failing = yield* request("GET", "/api/healthz").pipe(Effect.ensuring(Effect.sync(() => renameSync(`${dataDir}.gone`, dataDir))))
      assert.strictEqual(failing.status, 503, failing.text)
      assert.strictEqual(at(failing.body, "status"), "fail")
      assert.strictEqual(at(failing.body, "checks", "database:ping", 0, "status"), "pass")
      assert.strictEqual(at(failing.body, "checks", "storage:write", 0, "status"), "fail")
      assert.include(String(at(failing.body, "checks", "storage:write", 0, "output")), "ENOENT")

      assert.strictEqual((yield* request("GET", "/api/healthz")).status, 200)
    }))
})
