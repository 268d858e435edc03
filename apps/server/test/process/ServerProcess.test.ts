/**
 * The server as an operator runs it: a real process on the embedded database. Start-up, the
 * data-dir lock, restarts keeping data, and graceful shutdown on SIGTERM.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, listening, type ServerProcess, spawnServer } from "../support/ServerProcess.ts"

const adminAuth = `Basic ${Buffer.from("root:root-password").toString("base64")}`

const get = async (port: number, path: string) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: adminAuth } })
  return { status: response.status, body: await response.text() }
}

/** The first access-log line matching `matches`, waiting for the batched write. */
const accessLogLine = async (running: ServerProcess, matches: (line: Record<string, unknown>) => boolean) => {
  for (let attempt = 0; attempt < 50; attempt++) {
    for (const text of running.output.split("\n")) {
      if (!text.startsWith("{")) continue
      const line: Record<string, unknown> = JSON.parse(text)
      if (line["message"] === "request" && matches(line)) return line
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no access log line: ${running.output}`)
}

describe("the server process", () => {
  it("refuses a second process on the same data dir, keeps data across restarts, and drains on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "kiln-process-"))
    const first = spawnServer({ dataDir, port: await freePort() })
    await listening(first)
    const created = await fetch(`http://127.0.0.1:${first.port}/api/v1/admin/users`, {
      method: "POST",
      headers: { authorization: adminAuth, "content-type": "application/json" },
      body: JSON.stringify({ username: "persisted", email: "persisted@example.com", password: "password1" })
    })
    assert.strictEqual(created.status, 201)

    // A second process on the same data dir stops at once and harms nothing.
    const second = spawnServer({ dataDir, port: await freePort() })
    const secondCode = await second.exited
    assert.notStrictEqual(secondCode, 0)
    assert.include(second.output, `data directory ${dataDir} is in use by process ${first.child.pid}`)
    assert.strictEqual((await get(first.port, "/api/v1/users/persisted")).status, 200)

    // An in-flight request (its body still arriving) finishes although SIGTERM came first.
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = httpRequest({
        host: "127.0.0.1",
        port: first.port,
        path: "/api/v1/admin/users/persisted",
        method: "PATCH",
        headers: { authorization: adminAuth, "content-type": "application/json", "transfer-encoding": "chunked" }
      }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      })
      req.on("error", reject)
      req.write(`{"full_name":`)
      setTimeout(() => {
        first.child.kill("SIGTERM")
        setTimeout(() => req.end(`"Still Here"}`), 300)
      }, 200)
    })
    assert.strictEqual(await inFlight, 200)
    await first.exited

    const restarted = spawnServer({ dataDir, port: await freePort() })
    await listening(restarted)
    const user = await get(restarted.port, "/api/v1/users/persisted")
    assert.strictEqual(user.status, 200)
    assert.include(user.body, `"full_name":"Still Here"`)

    // The access log: one JSON line per request on standard output.
    const logged = await accessLogLine(restarted, (line) => line["path"] === "/api/v1/users/persisted")
    assert.strictEqual(logged["method"], "GET")
    assert.strictEqual(logged["status"], 200)
    assert.strictEqual(logged["remote"], "127.0.0.1")
    assert.isNumber(logged["durationMs"])
    assert.isFalse(Number.isNaN(Date.parse(String(logged["timestamp"]))))
    restarted.child.kill("SIGTERM")
    await restarted.exited
  }, 120_000)
})
