/**
 * Delivery that survives processes: the shipped server in real processes, a real receiver. A
 * server killed with SIGKILL while a delivery is in flight delivers it after a restart (the same
 * guid again: at least once, never zero times); two servers on one PostgreSQL database share a
 * burst of deliveries with none lost and none sent by both.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeHookReceiver } from "../support/HookReceiver.ts"
import { freePort, listening, type ServerProcess, spawnServer } from "../support/ServerProcess.ts"

const adminAuth = `Basic ${Buffer.from("root:root-password").toString("base64")}`

const call = (port: number, method: string, path: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
      method,
      headers: { authorization: adminAuth, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as unknown }
  })

const start = (dataDir: string, env: Readonly<Record<string, string>>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const running = spawnServer({ dataDir, port: await freePort(), env: { KILN_ACCESS_LOG: "false", ...env } })
      await listening(running)
      return running
    }),
    (running) =>
      Effect.promise(async () => {
        if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill("SIGTERM")
        await running.exited
      })
  )

const kill = (running: ServerProcess) =>
  Effect.promise(async () => {
    running.child.kill("SIGKILL")
    await running.exited
  })

const webhookEnv = { KILN_WEBHOOK_ALLOWED_HOSTS: "loopback", KILN_WEBHOOK_DELIVER_TIMEOUT: "1", KILN_WEBHOOK_RETRY_DELAY: "0.2" }

describe("webhook delivery across processes", () => {
  it.live("a delivery in flight when the server is killed is sent again after the restart, with its guid", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      // The first request is held open: the server has sent it and recorded nothing when it dies.
      receiver.answers.push("hang")
      const dataDir = mkdtempSync(join(tmpdir(), "kiln-webhook-kill-"))
      const first = yield* start(dataDir, webhookEnv)
      const repo = yield* call(first.port, "POST", "/user/repos", { name: "killed", auto_init: true })
      assert.strictEqual(repo.status, 201)
      const hook = yield* call(first.port, "POST", "/repos/root/killed/hooks", {
        type: "forgejo",
        config: { url: receiver.url, content_type: "json" },
        events: ["create", "push"],
        active: true
      })
      assert.strictEqual(hook.status, 201)
      const branch = yield* call(first.port, "POST", "/repos/root/killed/branches", { new_branch_name: "doomed" })
      assert.strictEqual(branch.status, 201)
      const [inFlight] = yield* receiver.waitFor(1)
      yield* kill(first)

      const second = yield* start(dataDir, webhookEnv)
      // The held `create` comes again once its lease ran out, then the `push` behind it.
      const received = yield* receiver.waitFor(3, 60_000)
      const guid = inFlight?.headers["x-forgejo-delivery"]
      assert.strictEqual(received[1]?.headers["x-forgejo-delivery"], guid)
      assert.strictEqual(received[1]?.headers["x-forgejo-event"], "create")
      assert.strictEqual(received[2]?.headers["x-forgejo-event"], "push")
      const hookId = Number((hook.body as { id: number }).id)
      const deliveries = yield* call(second.port, "GET", `/repos/root/killed/hooks/${hookId}/deliveries`)
      const items = deliveries.body as ReadonlyArray<{ status: string; event: string }>
      assert.deepStrictEqual(items.map((item) => [item.event, item.status]), [["push", "OK"], ["create", "OK"]])
    })), { timeout: 180_000 })

  it.live("two servers on one PostgreSQL database deliver a burst: nothing lost, nothing sent twice", () =>
    Effect.scoped(Effect.gen(function*() {
      const adminUrl = process.env["KILN_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
      const name = `kiln_wh_${process.pid}_${Date.now()}`
      const psql = (sql: string) => execFileSync("psql", [adminUrl, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], { stdio: "pipe" })
      yield* Effect.acquireRelease(
        Effect.sync(() => psql(`CREATE DATABASE ${name}`)),
        () => Effect.sync(() => psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
      )
      const databaseUrl = new URL(adminUrl)
      databaseUrl.pathname = `/${name}`
      const receiver = yield* makeHookReceiver
      // Repositories live in the shared data dir; the database is the only coordination.
      const dataDir = mkdtempSync(join(tmpdir(), "kiln-webhook-pair-"))
      const env = { ...webhookEnv, DATABASE_URL: databaseUrl.toString() }
      const one = yield* start(dataDir, env)
      const two = yield* start(dataDir, env)
      assert.strictEqual((yield* call(one.port, "POST", "/user/repos", { name: "burst", auto_init: true })).status, 201)
      const hook = yield* call(one.port, "POST", "/repos/root/burst/hooks", {
        type: "forgejo",
        config: { url: receiver.url, content_type: "json" },
        events: ["create"],
        active: true
      })
      assert.strictEqual(hook.status, 201)
      const count = 60
      yield* Effect.forEach(
        Array.from({ length: count }, (_, i) => i),
        (i) => call(i % 2 === 0 ? one.port : two.port, "POST", "/repos/root/burst/branches", { new_branch_name: `b${i}` }),
        { concurrency: 4 }
      )
      yield* receiver.waitFor(count, 60_000)
      // Anything sent twice would arrive after the last first send: wait past a retry's delay.
      yield* Effect.sleep("1500 millis")
      const guids = receiver.received.map((r) => r.headers["x-forgejo-delivery"])
      assert.strictEqual(guids.length, count)
      assert.strictEqual(new Set(guids).size, count)
      const refs = receiver.received.map((r) => String((JSON.parse(r.body) as { ref: string }).ref)).sort()
      assert.deepStrictEqual(refs, Array.from({ length: count }, (_, i) => `refs/heads/b${i}`).sort())
    })), { timeout: 240_000 })
})
