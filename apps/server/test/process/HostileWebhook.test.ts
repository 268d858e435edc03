/**
 * A webhook can never take the process down (review 4b30e64, finding 22): the shipped server in a
 * real process, a hook whose authorization header was written straight into the database (past
 * the check made when a hook is saved, as a hook stored before that check would be). Its
 * deliveries are failed attempts with Go's reason, the server keeps answering, and a header beyond
 * latin-1 goes out as its UTF-8 bytes, as Forgejo sends it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeHookReceiver } from "../support/HookReceiver.ts"
import { freePort, listening, spawnServer } from "../support/ServerProcess.ts"

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

describe("a webhook with a header no client can send", () => {
  it.live("is a failed delivery, and the server keeps running", () =>
    Effect.scoped(Effect.gen(function*() {
      const adminUrl = process.env["KILN_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
      const name = `kiln_hostile_${process.pid}_${Date.now()}`
      const psql = (database: string, sql: string) =>
        execFileSync("psql", [database, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], { stdio: "pipe" })
      yield* Effect.acquireRelease(
        Effect.sync(() => psql(adminUrl, `CREATE DATABASE ${name}`)),
        () => Effect.sync(() => psql(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
      )
      const databaseUrl = new URL(adminUrl)
      databaseUrl.pathname = `/${name}`
      const receiver = yield* makeHookReceiver
      const server = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const running = spawnServer({
            dataDir: mkdtempSync(join(tmpdir(), "kiln-hostile-hook-")),
            port: await freePort(),
            env: {
              DATABASE_URL: databaseUrl.toString(),
              KILN_ACCESS_LOG: "false",
              KILN_WEBHOOK_ALLOWED_HOSTS: "loopback",
              KILN_WEBHOOK_DELIVER_TIMEOUT: "2",
              KILN_WEBHOOK_RETRY_DELAY: "0.2"
            }
          })
          await listening(running)
          return running
        }),
        (running) =>
          Effect.promise(async () => {
            if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill("SIGTERM")
            await running.exited
          })
      )
      assert.strictEqual((yield* call(server.port, "POST", "/user/repos", { name: "target", auto_init: true })).status, 201)
      const hook = yield* call(server.port, "POST", "/repos/root/target/hooks", {
        type: "forgejo",
        config: { url: receiver.url, content_type: "json" },
        events: ["create"],
        authorization_header: "Bearer fine",
        active: true
      })
      assert.strictEqual(hook.status, 201)
      const hookId = Number((hook.body as { id: number }).id)
      const setHeader = (sqlLiteral: string) =>
        Effect.sync(() => psql(databaseUrl.toString(), `UPDATE webhooks SET authorization_header = ${sqlLiteral} WHERE id = ${hookId}`))
      const deliveries = call(server.port, "GET", `/repos/root/target/hooks/${hookId}/deliveries`).pipe(
        Effect.map((response) => response.body as ReadonlyArray<{ status: string; event: string }>)
      )
      const settled = (count: number) =>
        Effect.gen(function*() {
          for (let tries = 0; tries < 600; tries++) {
            const items = yield* deliveries
            if (items.length >= count && items.every((item) => item.status !== "pending")) return items
            yield* Effect.sleep("50 millis")
          }
          return yield* Effect.die(new Error(`deliveries never settled: ${server.output}`))
        })

      // CR LF (a header injection) and a control character: node throws for these while it builds the
      // request, which ended the process before.
      yield* setHeader(`E'Bearer a\\r\\nX-Injected: 1'`)
      assert.strictEqual((yield* call(server.port, "POST", "/repos/root/target/hooks/" + hookId + "/tests")).status, 204)
      yield* setHeader(`E'Bearer \\x07'`)
      assert.strictEqual((yield* call(server.port, "POST", "/repos/root/target/branches", { new_branch_name: "b1" })).status, 201)
      const failed = yield* settled(2)
      assert.deepStrictEqual(
        failed.map((item) => item.status),
        ['net/http: invalid header field value for "Authorization"', 'net/http: invalid header field value for "Authorization"']
      )
      assert.strictEqual(receiver.received.length, 0)
      // Still here, still answering.
      yield* Effect.sleep("500 millis")
      assert.strictEqual(server.child.exitCode, null, server.output)
      assert.strictEqual((yield* call(server.port, "GET", "/version")).status, 200)

      // Beyond latin-1 (node refuses it as such): sent as UTF-8 bytes, as Go sends a string.
      yield* setHeader(`'Bearer Ā'`)
      assert.strictEqual((yield* call(server.port, "POST", "/repos/root/target/branches", { new_branch_name: "b2" })).status, 201)
      const [arrived] = yield* receiver.waitFor(1)
      const raw = arrived?.rawHeaders ?? []
      const sent = raw[raw.findIndex((header) => header.toLowerCase() === "authorization") + 1] ?? ""
      assert.strictEqual(Buffer.from(sent, "latin1").toString("utf8"), "Bearer Ā")
      assert.strictEqual(server.child.exitCode, null, server.output)
    })), { timeout: 180_000 })
})
