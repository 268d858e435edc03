/**
 * The standalone server's policy for errors no code caught (platform/ProcessFailures.ts), in real
 * processes: an unhandled rejection is logged as a JSON line and the process keeps running; an
 * uncaught exception is logged the same way and the process exits 1.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const fixture = fileURLToPath(new URL("./fixtures/FailingProcess.ts", import.meta.url))
const run = (failure: "rejection" | "exception") =>
  spawnSync(process.execPath, [fixture, failure], { encoding: "utf8", timeout: 30_000 })

const logLines = (output: string) =>
  output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { level: string; message: unknown })

describe("the process failure policy", () => {
  it("logs an unhandled rejection and keeps running", () => {
    const result = run("rejection")
    assert.strictEqual(result.status, 0, result.stderr)
    assert.include(result.stdout, "still running")
    const [line] = logLines(result.stdout + result.stderr)
    assert.strictEqual(line?.level, "ERROR")
    assert.include(JSON.stringify(line?.message), "a rejection nobody handled")
  })

  it("logs an uncaught exception and exits 1", () => {
    const result = run("exception")
    assert.strictEqual(result.status, 1, result.stderr)
    assert.notInclude(result.stdout, "still running")
    const [line] = logLines(result.stdout + result.stderr)
    assert.strictEqual(line?.level, "ERROR")
    assert.include(JSON.stringify(line?.message), "an exception nobody caught")
  })
})
