/**
 * A server without KILN_TRUSTED_PROXIES that receives X-Forwarded-For (it runs behind a proxy
 * nobody declared: every client shares the proxy's address) says so in its log, once.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, listening, spawnServer } from "../support/ServerProcess.ts"

const WARNING = "ignored without KILN_TRUSTED_PROXIES"

const occurrences = (text: string, part: string) => text.split(part).length - 1

describe("X-Forwarded-For without trusted proxies", () => {
  it("is warned about once, at the first request carrying it", { timeout: 120_000 }, async () => {
    const running = spawnServer({ dataDir: mkdtempSync(join(tmpdir(), "kiln-forwarded-")), port: await freePort(), env: { KILN_ACCESS_LOG: "false" } })
    try {
      await listening(running)
      const get = (headers: Record<string, string>) =>
        fetch(`http://127.0.0.1:${running.port}/api/v1/version`, { headers }).then((response) => response.status)
      assert.strictEqual(await get({}), 200)
      assert.strictEqual(occurrences(running.output, WARNING), 0, "no warning without the header")
      for (const client of ["203.0.113.1", "203.0.113.2", "203.0.113.3"]) assert.strictEqual(await get({ "x-forwarded-for": client }), 200)
      for (let attempt = 0; attempt < 50 && occurrences(running.output, WARNING) === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.strictEqual(occurrences(running.output, WARNING), 1, running.output)
    } finally {
      running.child.kill("SIGTERM")
      await running.exited
    }
  })
})
