import { assert, describe, it } from "@effect/vitest"
import { renderRequest } from "@kiln/domain/markdown/RenderRequest"
import { spawn } from "node:child_process"
import { once } from "node:events"
import { makeWorkerPool } from "../src/worker/WorkerPool.ts"

const request = (text: string) => renderRequest({ text, mode: "gfm", context: "", wiki: false }, "http://localhost:3000/")

describe("WorkerPool", () => {
  it("renders more jobs than workers, each answered with its own HTML", async () => {
    const pool = makeWorkerPool({ size: 2, timeoutMillis: 10_000 })
    try {
      const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.render(request(`# n${i}`), [])))
      assert.deepStrictEqual(
        outcomes,
        Array.from({ length: 6 }, (_, i) => ({ _tag: "Rendered", html: `<h1 id="user-content-n${i}">n${i}</h1>\n` }))
      )
    } finally {
      await pool.close()
    }
  })

  it("a job whose caller goes away before its turn is dropped", async () => {
    const pool = makeWorkerPool({ size: 1, timeoutMillis: 300 })
    try {
      const slow = Array.from({ length: 400 }, (_, i) => " ".repeat(i * 2) + "- x").join("\n")
      const first = pool.render(request(slow), [])
      const controller = new AbortController()
      const second = pool.render(request("# dropped"), [], controller.signal)
      controller.abort()
      assert.deepStrictEqual(await first, { _tag: "TimedOut" })
      const third = await pool.render(request("kept"), [])
      assert.deepStrictEqual(third, { _tag: "Rendered", html: "<p>kept</p>\n" })
      const settled = await Promise.race([second.then(() => "settled"), new Promise((r) => setTimeout(() => r("pending"), 50))])
      assert.strictEqual(settled, "pending")
    } finally {
      await pool.close()
    }
  })

  it("answers Busy at once when every worker is taken and the queue is full, and serves again once it drains", async () => {
    const pool = makeWorkerPool({ size: 1, timeoutMillis: 300, maxQueued: 1 })
    try {
      const slow = Array.from({ length: 400 }, (_, i) => " ".repeat(i * 2) + "- x").join("\n")
      const running = pool.render(request(slow), [])
      const waiting = pool.render(request(slow), [])
      assert.deepStrictEqual(await pool.render(request("# refused"), []), { _tag: "Busy" })
      assert.deepStrictEqual(await running, { _tag: "TimedOut" })
      assert.deepStrictEqual(await waiting, { _tag: "TimedOut" })
      assert.deepStrictEqual(await pool.render(request("served"), []), { _tag: "Rendered", html: "<p>served</p>\n" })
    } finally {
      await pool.close()
    }
  })

  it("refuses work once closed", async () => {
    const pool = makeWorkerPool({ size: 1, timeoutMillis: 1_000 })
    await pool.close()
    const result = await pool.render(request("x"), []).then(() => "rendered", (e: Error) => e.message)
    assert.strictEqual(result, "the markdown worker pool is closed")
  })

  it("stops its workers after an idle period and starts them again for the next render", async () => {
    const pool = makeWorkerPool({ size: 2, timeoutMillis: 10_000, idleMillis: 400 })
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    try {
      assert.strictEqual(pool.running(), 0)
      assert.deepStrictEqual(await pool.render(request("one"), []), { _tag: "Rendered", html: "<p>one</p>\n" })
      assert.strictEqual(pool.running(), 2)
      // Each render restarts the idle period.
      for (let i = 0; i < 3; i++) {
        await sleep(200)
        await pool.render(request("again"), [])
      }
      assert.strictEqual(pool.running(), 2)
      const idleSince = Date.now()
      while (pool.running() > 0 && Date.now() - idleSince < 5_000) await sleep(20)
      assert.strictEqual(pool.running(), 0)
      assert.isAtLeast(Date.now() - idleSince, 350)
      assert.deepStrictEqual(await pool.render(request("three"), []), { _tag: "Rendered", html: "<p>three</p>\n" })
      assert.strictEqual(pool.running(), 2)
    } finally {
      await pool.close()
    }
  })

  it("render processes end with the process that started them, even killed in the middle of a render", async () => {
    const host = spawn(process.execPath, [new URL("./support/PoolHost.ts", import.meta.url).pathname], { stdio: ["ignore", "pipe", "inherit"] })
    const [line] = (await once(host.stdout, "data")) as [Buffer]
    const pids = line.toString().trim().split(" ").map(Number)
    assert.isAbove(pids.length, 0)
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    assert.isTrue(pids.every(alive))
    host.kill("SIGKILL")
    const since = Date.now()
    while (pids.some(alive) && Date.now() - since < 5_000) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepStrictEqual(pids.filter(alive), [])
  }, 30_000)
})
